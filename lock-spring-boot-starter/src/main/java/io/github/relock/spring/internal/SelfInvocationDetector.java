package io.github.relock.spring.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

/**
 * Finds, in a bean class's bytecode, the calls it makes to its own {@code @DistributedLock} methods: such a call
 * goes to the object itself, not through the bean's proxy, so the called method runs without its lock.
 *
 * <p>Reads the class, each superclass and each interface (Spring's repackaged ASM, {@code org.springframework.asm})
 * and reports every {@code invokevirtual}, {@code invokespecial} or {@code invokeinterface} of an annotated method
 * whose owner is one of them and whose receiver is {@code this} ({@link ThisOnStack}), made from an instance
 * method (a lambda's body that uses {@code this} and a default method included), and every method reference
 * bound to {@code this} ({@code this::pay}). Not reported: a call on another reference, such as the bean's own proxy
 * injected into a field ({@code self.pay(...)}), a static caller, a bridge method, and {@code super.pay(...)}
 * from the override of {@code pay} (the override's own lock applies). A class whose bytecode cannot be read
 * as a resource (generated at runtime) is skipped.
 */
final class SelfInvocationDetector {

    /**
     * A call from inside a class to one of its annotated methods.
     *
     * @param caller the calling method: class, name and parameter types, as {@code com.example.Payments.payAll(List)}
     * @param callee the annotated method called
     */
    record SelfCall(String caller, Method callee) {

        /** {@code pay(String)}: the callee with its parameter types' simple names. */
        String calleeSignature() {
            return callee.getName() + "(" + String.join(", ",
                    Arrays.stream(callee.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
        }
    }

    private SelfInvocationDetector() {
    }

    /**
     * The calls {@code type} and its superclasses make to {@code annotated} methods, in the order the bytecode
     * holds them.
     *
     * @param annotated the annotated methods of {@code type}, as {@link LockAnnotationLookup#annotatedMethods} finds them
     */
    static List<SelfCall> find(Class<?> type, Collection<Method> annotated) {
        Map<String, Method> callees = new HashMap<>();
        for (Method method : annotated) {
            callees.put(method.getName() + Type.getMethodDescriptor(method), method);
        }
        List<Class<?>> read = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            read.add(c);
        }
        read.addAll(ClassUtils.getAllInterfacesForClassAsSet(type)); // their default methods run on the bean too
        Set<String> owners = new HashSet<>();
        for (Class<?> c : read) {
            owners.add(Type.getInternalName(c));
        }
        List<SelfCall> calls = new ArrayList<>();
        for (Class<?> c : read) {
            ClassReader reader = reader(c);
            if (reader != null) {
                reader.accept(new CallFinder(c.getName(), owners, callees, calls),
                        ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
            }
        }
        return calls;
    }

    private static @Nullable ClassReader reader(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        if (loader == null) {
            return null; // the JDK's own classes call none of the application's methods
        }
        try (InputStream in = loader.getResourceAsStream(Type.getInternalName(type) + ".class")) {
            return in == null ? null : new ClassReader(in);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read the bytecode of " + type.getName(), ex);
        }
    }

    /** Visits one class's methods for calls to the callees. */
    private static final class CallFinder extends ClassVisitor {

        private final String className;
        private final Set<String> owners;
        private final Map<String, Method> callees;
        private final List<SelfCall> calls;

        CallFinder(String className, Set<String> owners, Map<String, Method> callees, List<SelfCall> calls) {
            super(SpringAsmInfo.ASM_VERSION);
            this.className = className;
            this.owners = owners;
            this.callees = callees;
            this.calls = calls;
        }

        @Override
        public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_BRIDGE | Opcodes.ACC_ABSTRACT)) != 0) {
                return null;
            }
            String caller = name + descriptor;
            return new ThisOnStack() {
                @Override
                void call(int opcode, String owner, String calledName, String calledDescriptor, boolean receiverIsThis) {
                    if ((opcode != Opcodes.INVOKEVIRTUAL && opcode != Opcodes.INVOKESPECIAL
                            && opcode != Opcodes.INVOKEINTERFACE) || !receiverIsThis
                            || !owners.contains(owner)) {
                        return;
                    }
                    String called = calledName + calledDescriptor;
                    Method callee = callees.get(called);
                    if (callee == null || (opcode == Opcodes.INVOKESPECIAL && called.equals(caller))) {
                        return; // not annotated, or super.pay(...) from the override of pay
                    }
                    calls.add(new SelfCall(className + "." + name + "(" + String.join(", ",
                            Arrays.stream(Type.getArgumentTypes(descriptor)).map(SelfInvocationDetector::simpleName)
                                    .toList()) + ")", callee));
                }
            };
        }
    }

    private static String simpleName(Type type) {
        String name = type.getClassName();
        return name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1);
    }
}
