package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.util.ReflectionUtils;

/**
 * Key expressions without a running application: what is checked at startup, and what arguments look
 * like when the class was compiled without {@code -parameters}.
 */
@Timeout(10)
class SpelLockKeyResolverTest {

    private final Method ship = ReflectionUtils.findMethod(Shipping.class, "ship", String.class, int.class);

    @Test
    void resolvesArgumentsByNameAndPosition() {
        SpelLockKeyResolver resolver = new SpelLockKeyResolver(null);
        Object[] args = { "order-1", 3 };
        assertThat(resolver.resolve("#id + ':' + #count", ship, args, new Shipping(), Shipping.class)).isEqualTo("order-1:3");
        assertThat(resolver.resolve("#p0 + #a1", ship, args, new Shipping(), Shipping.class)).isEqualTo("order-13");
        assertThat(resolver.resolve("#root.methodName + #root.targetClass.simpleName", ship, args, new Shipping(),
                Shipping.class)).isEqualTo("shipShipping");
    }

    @Test
    void withoutParameterNamesTheErrorSaysToCompileWithParametersOrUsePositions() {
        SpelLockKeyResolver resolver = new WithoutParameterNames();
        assertThatIllegalArgumentException().isThrownBy(() -> resolver.validate("#id", ship, Shipping.class))
                .withMessageContaining("#id").withMessageContaining("-parameters").withMessageContaining("#p0");
        resolver.validate("#p0 + #a1", ship, Shipping.class);
        Object[] args = { "order-1", 3 };
        assertThat(resolver.resolve("#p0", ship, args, new Shipping(), Shipping.class)).isEqualTo("order-1");
    }

    @Test
    void rootAndThisAreAlwaysKnown() {
        new SpelLockKeyResolver(null).validate("#root.args[0] + #this.toString()", ship, Shipping.class);
    }

    @Test
    void parsesEachExpressionOncePerMethod() {
        CountingResolver resolver = new CountingResolver();
        resolver.validate("#id", ship, Shipping.class);
        for (int i = 0; i < 5; i++) {
            resolver.resolve("#id", ship, new Object[] { "x", 1 }, new Shipping(), Shipping.class);
        }
        assertThat(resolver.parsed).isOne();
    }

    static class Shipping {

        public void ship(String id, int count) {
        }
    }

    /** As if compiled without -parameters: Spring no longer reads debug symbols. */
    static class WithoutParameterNames extends SpelLockKeyResolver {

        WithoutParameterNames() {
            super(null);
        }

        @Override
        protected ParameterNameDiscoverer getParameterNameDiscoverer() {
            return new ParameterNameDiscoverer() {
                @Override
                public String[] getParameterNames(Method method) {
                    return null;
                }

                @Override
                public String[] getParameterNames(java.lang.reflect.Constructor<?> ctor) {
                    return null;
                }
            };
        }
    }

    static class CountingResolver extends SpelLockKeyResolver {

        int parsed;

        CountingResolver() {
            super(null);
        }

        @Override
        protected org.springframework.expression.Expression parseExpression(String expression) {
            parsed++;
            return super.parseExpression(expression);
        }
    }
}
