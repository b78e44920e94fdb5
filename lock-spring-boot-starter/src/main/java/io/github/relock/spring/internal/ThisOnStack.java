package io.github.relock.spring.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Follows an instance method's operand stack through its bytecode, knowing of each value only whether it is
 * {@code this} (loaded from local 0) and whether it takes two slots, so that a call's receiver can be told
 * apart: {@code this.pay(...)} from {@code self.pay(...)} on a field. Where the stack cannot be followed (code
 * reached only by a jump it has not seen), it knows nothing and says no value is {@code this} until a known
 * state comes back; so it may miss a call, never invent one.
 *
 * <p>Subclasses see each call through {@link #call} before its arguments leave the stack, and a method reference
 * bound to {@code this} ({@code this::pay}) as a call of the method it refers to.
 */
abstract class ThisOnStack extends MethodVisitor {

    private static final byte OTHER = 0;
    private static final byte WIDE = 1;
    private static final byte THIS = 2;

    private byte[] stack = new byte[16];
    private int size;
    private boolean known = true;
    /** The stack at each jump target and exception handler seen so far. */
    private final Map<Label, byte[]> atLabels = new HashMap<>();

    ThisOnStack() {
        super(SpringAsmInfo.ASM_VERSION);
    }

    /**
     * A method call; {@code receiverIsThis} is whether its receiver is known to be {@code this} (never for a
     * static call).
     */
    abstract void call(int opcode, String owner, String name, String descriptor, boolean receiverIsThis);

    @Override
    public void visitTryCatchBlock(Label start, Label end, Label handler, @Nullable String type) {
        atLabels.putIfAbsent(handler, new byte[] {OTHER}); // the exception
    }

    @Override
    public void visitLabel(Label label) {
        byte[] recorded = atLabels.get(label);
        if (!known && recorded != null) {
            stack = Arrays.copyOf(recorded, Math.max(16, recorded.length * 2));
            size = recorded.length;
            known = true;
        }
    }

    @Override
    public void visitInsn(int opcode) {
        if (opcode == Opcodes.NOP) {
            return;
        }
        if (opcode == Opcodes.LCONST_0 || opcode == Opcodes.LCONST_1 || opcode == Opcodes.DCONST_0
                || opcode == Opcodes.DCONST_1) {
            push(WIDE);
        }
        else if (opcode <= Opcodes.DCONST_1) {
            push(OTHER); // ACONST_NULL, ICONST_*, FCONST_*
        }
        else if (opcode >= Opcodes.IALOAD && opcode <= Opcodes.SALOAD) {
            pop(2);
            push(opcode == Opcodes.LALOAD || opcode == Opcodes.DALOAD ? WIDE : OTHER);
        }
        else if (opcode >= Opcodes.IASTORE && opcode <= Opcodes.SASTORE) {
            pop(3);
        }
        else if (opcode >= Opcodes.POP && opcode <= Opcodes.SWAP) {
            shuffle(opcode);
        }
        else if (opcode >= Opcodes.IADD && opcode <= Opcodes.DREM) {
            pop(2);
            push((opcode - Opcodes.IADD) % 2 == 1 ? WIDE : OTHER); // I, L, F, D in turn
        }
        else if (opcode >= Opcodes.INEG && opcode <= Opcodes.DNEG) {
            pop(1);
            push((opcode - Opcodes.INEG) % 2 == 1 ? WIDE : OTHER);
        }
        else if (opcode >= Opcodes.ISHL && opcode <= Opcodes.LXOR) {
            pop(2);
            push((opcode - Opcodes.ISHL) % 2 == 1 ? WIDE : OTHER);
        }
        else if (opcode >= Opcodes.I2L && opcode <= Opcodes.I2S) {
            pop(1);
            push(opcode == Opcodes.I2L || opcode == Opcodes.I2D || opcode == Opcodes.L2D || opcode == Opcodes.F2L
                    || opcode == Opcodes.F2D || opcode == Opcodes.D2L ? WIDE : OTHER);
        }
        else if (opcode >= Opcodes.LCMP && opcode <= Opcodes.DCMPG) {
            pop(2);
            push(OTHER);
        }
        else if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN || opcode == Opcodes.ATHROW) {
            unreachable();
        }
        else if (opcode == Opcodes.ARRAYLENGTH) {
            pop(1);
            push(OTHER);
        }
        else if (opcode == Opcodes.MONITORENTER || opcode == Opcodes.MONITOREXIT) {
            pop(1);
        }
        else {
            lost();
        }
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
        if (opcode == Opcodes.NEWARRAY) {
            pop(1);
        }
        push(OTHER);
    }

    @Override
    public void visitVarInsn(int opcode, int varIndex) {
        switch (opcode) {
            case Opcodes.ALOAD -> push(varIndex == 0 ? THIS : OTHER);
            case Opcodes.ILOAD, Opcodes.FLOAD -> push(OTHER);
            case Opcodes.LLOAD, Opcodes.DLOAD -> push(WIDE);
            case Opcodes.RET -> unreachable();
            default -> pop(1); // the stores
        }
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
        switch (opcode) {
            case Opcodes.NEW -> push(OTHER);
            case Opcodes.CHECKCAST -> {
                // ((Payments) this).pay(...) still calls this
            }
            default -> { // ANEWARRAY, INSTANCEOF
                pop(1);
                push(OTHER);
            }
        }
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
        byte value = wide(Type.getType(descriptor)) ? WIDE : OTHER;
        switch (opcode) {
            case Opcodes.GETSTATIC -> push(value);
            case Opcodes.PUTSTATIC -> pop(1);
            case Opcodes.GETFIELD -> {
                pop(1);
                push(value);
            }
            default -> pop(2); // PUTFIELD
        }
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        int arguments = Type.getArgumentTypes(descriptor).length;
        boolean receiverIsThis = opcode != Opcodes.INVOKESTATIC && known && size > arguments
                && stack[size - arguments - 1] == THIS;
        call(opcode, owner, name, descriptor, receiverIsThis);
        pop(arguments + (opcode == Opcodes.INVOKESTATIC ? 0 : 1));
        pushReturn(Type.getReturnType(descriptor));
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
            Object... bootstrapMethodArguments) {
        int arguments = Type.getArgumentTypes(descriptor).length;
        // a method reference bound to this (this::pay): the function it makes calls pay on this
        if (bootstrapMethodHandle.getOwner().equals("java/lang/invoke/LambdaMetafactory")
                && bootstrapMethodArguments.length > 1 && bootstrapMethodArguments[1] instanceof Handle target
                && arguments > 0 && known && size >= arguments && stack[size - arguments] == THIS) {
            int opcode = switch (target.getTag()) {
                case Opcodes.H_INVOKEVIRTUAL -> Opcodes.INVOKEVIRTUAL;
                case Opcodes.H_INVOKESPECIAL -> Opcodes.INVOKESPECIAL;
                case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
                default -> -1;
            };
            if (opcode != -1) {
                call(opcode, target.getOwner(), target.getName(), target.getDesc(), true);
            }
        }
        pop(arguments);
        pushReturn(Type.getReturnType(descriptor));
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
        if (opcode >= Opcodes.IFEQ && opcode <= Opcodes.IFLE || opcode == Opcodes.IFNULL
                || opcode == Opcodes.IFNONNULL) {
            pop(1);
        }
        else if (opcode >= Opcodes.IF_ICMPEQ && opcode <= Opcodes.IF_ACMPNE) {
            pop(2);
        }
        record(label);
        if (opcode == Opcodes.GOTO || opcode == Opcodes.JSR) {
            unreachable();
        }
    }

    @Override
    public void visitLdcInsn(Object value) {
        push(value instanceof Long || value instanceof Double ? WIDE : OTHER);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
        switchTo(dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
        switchTo(dflt, labels);
    }

    @Override
    public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
        pop(numDimensions);
        push(OTHER);
    }

    private void switchTo(Label dflt, Label[] labels) {
        pop(1);
        record(dflt);
        for (Label label : labels) {
            record(label);
        }
        unreachable();
    }

    private void shuffle(int opcode) {
        if (!known) {
            return;
        }
        switch (opcode) {
            case Opcodes.POP -> pop(1);
            case Opcodes.POP2 -> pop(peek(0) == WIDE ? 1 : 2);
            case Opcodes.DUP -> push(peek(0));
            case Opcodes.SWAP -> {
                byte v1 = take();
                byte v2 = take();
                push(v1);
                push(v2);
            }
            default -> duplicate(opcode);
        }
    }

    /** The DUP_X and DUP2 forms, which depend on how many slots the values take. */
    private void duplicate(int opcode) {
        byte v1 = take();
        byte v2 = take();
        switch (opcode) {
            case Opcodes.DUP_X1 -> pushAll(v1, v2, v1);
            case Opcodes.DUP_X2 -> {
                if (v2 == WIDE) {
                    pushAll(v1, v2, v1);
                }
                else {
                    byte v3 = take();
                    pushAll(v1, v3, v2, v1);
                }
            }
            case Opcodes.DUP2 -> {
                if (v1 == WIDE) {
                    pushAll(v2, v1, v1);
                }
                else {
                    pushAll(v2, v1, v2, v1);
                }
            }
            case Opcodes.DUP2_X1 -> {
                if (v1 == WIDE) {
                    pushAll(v1, v2, v1);
                }
                else {
                    byte v3 = take();
                    pushAll(v2, v1, v3, v2, v1);
                }
            }
            default -> { // DUP2_X2: too rare in a bean's code to follow
                lost();
            }
        }
    }

    private void pushReturn(Type returnType) {
        if (returnType.getSort() != Type.VOID) {
            push(wide(returnType) ? WIDE : OTHER);
        }
    }

    private static boolean wide(Type type) {
        return type.getSort() == Type.LONG || type.getSort() == Type.DOUBLE;
    }

    private void record(Label label) {
        if (known) {
            atLabels.putIfAbsent(label, Arrays.copyOf(stack, size));
        }
    }

    private void unreachable() {
        known = false;
        size = 0;
    }

    private void lost() {
        known = false;
        size = 0;
    }

    private byte peek(int depth) {
        return size > depth ? stack[size - 1 - depth] : OTHER;
    }

    private byte take() {
        if (size == 0) {
            lost();
            return OTHER;
        }
        return stack[--size];
    }

    private void pop(int count) {
        if (!known) {
            return;
        }
        if (count > size) {
            lost();
            return;
        }
        size -= count;
    }

    private void pushAll(byte... values) {
        for (byte value : values) {
            push(value);
        }
    }

    private void push(byte value) {
        if (!known) {
            return;
        }
        if (size == stack.length) {
            stack = Arrays.copyOf(stack, size * 2);
        }
        stack[size++] = value;
    }
}
