package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

import io.github.relock.spring.LockKeyExpression;
import io.github.relock.spring.LockKeyResolver;

/**
 * Evaluates key expressions as SpEL, the way Spring's cache abstraction evaluates cache keys: each
 * expression is parsed once per (method, bean class) and cached; arguments are visible as {@code #name},
 * {@code #p0} and {@code #a0}, the call as {@code #root}, beans as {@code @name}.
 */
public class SpelLockKeyResolver extends CachedExpressionEvaluator implements LockKeyResolver {

    private static final Pattern INDEXED_ARGUMENT = Pattern.compile("[pa](\\d+)");

    private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);
    private final @Nullable BeanResolver beanResolver;

    /** @param beanResolver resolves {@code @beanName} references; {@code null} to not allow them */
    public SpelLockKeyResolver(@Nullable BeanResolver beanResolver) {
        this.beanResolver = beanResolver;
    }

    @Override
    public void validate(String expression, Method method, Class<?> targetClass) {
        Expression parsed;
        try {
            parsed = expression(expression, method, targetClass);
        }
        catch (ParseException ex) {
            throw new IllegalArgumentException("it does not parse (" + ex.getSimpleMessage() + " at position "
                    + ex.getPosition() + ")", ex);
        }
        if (parsed instanceof SpelExpression spel) {
            checkVariables(spel.getAST(), method);
        }
    }

    @Override
    public @Nullable Object resolve(String expression, Method method, @Nullable Object[] arguments, Object target,
            Class<?> targetClass) {
        return evaluator(expression(expression, method, targetClass), method, targetClass).evaluate(arguments, target);
    }

    /** The parsed expression itself, with a fresh evaluation context per call and no cache lookup. */
    @Override
    public LockKeyExpression parse(String expression, Method method, Class<?> targetClass) {
        validate(expression, method, targetClass);
        return evaluator(expression(expression, method, targetClass), method, targetClass);
    }

    private LockKeyExpression evaluator(Expression parsed, Method method, Class<?> targetClass) {
        return (arguments, target) -> {
            LockKeyRootObject root = new LockKeyRootObject(method, arguments, target, targetClass);
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, arguments,
                    getParameterNameDiscoverer());
            if (beanResolver != null) {
                context.setBeanResolver(beanResolver);
            }
            return parsed.getValue(context);
        };
    }

    private Expression expression(String expression, Method method, Class<?> targetClass) {
        return getExpression(expressions, new AnnotatedElementKey(method, targetClass), expression);
    }

    /** Fails on a {@code #variable} that no argument will ever provide: it would always evaluate to null. */
    private void checkVariables(SpelNode node, Method method) {
        List<String> unknown = new ArrayList<>();
        collectUnknownVariables(node, method, argumentNames(method), unknown);
        if (unknown.isEmpty()) {
            return;
        }
        String[] names = argumentNames(method);
        String refs = String.join(", ", unknown);
        if (names == null && method.getParameterCount() > 0) {
            throw new IllegalArgumentException("it refers to " + refs + ", but the parameter names of "
                    + method.getName() + " are not available at runtime: compile with the -parameters flag "
                    + "(Spring no longer reads debug symbols), or refer to arguments by position as #p0/#a0");
        }
        throw new IllegalArgumentException("it refers to " + refs + ", which is not an argument of "
                + method.getName() + " (parameters: " + (names == null ? "none" : Arrays.toString(names))
                + ", or #p0..#p" + Math.max(0, argumentCount(method) - 1) + ")");
    }

    /** The caller's arguments: a suspend function's compiled Continuation, last, is none of them. */
    private static int argumentCount(Method method) {
        Class<?>[] types = method.getParameterTypes();
        boolean continuation = types.length > 0
                && types[types.length - 1].getName().equals("kotlin.coroutines.Continuation");
        return continuation ? types.length - 1 : types.length;
    }

    private static void collectUnknownVariables(SpelNode node, Method method, String @Nullable [] names,
            List<String> unknown) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            if (!isKnownVariable(name, method, names)) {
                unknown.add("#" + name);
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectUnknownVariables(node.getChild(i), method, names, unknown);
        }
    }

    private static boolean isKnownVariable(String name, Method method, String @Nullable [] names) {
        if (name.equals("root") || name.equals("this")) {
            return true;
        }
        var indexed = INDEXED_ARGUMENT.matcher(name);
        if (indexed.matches()) {
            return Integer.parseInt(indexed.group(1)) < argumentCount(method);
        }
        return names != null && Arrays.asList(names).contains(name);
    }

    private String @Nullable [] argumentNames(Method method) {
        return getParameterNameDiscoverer().getParameterNames(method);
    }
}
