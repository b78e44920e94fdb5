package io.github.relock.spring.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.relock.spring.InvalidLockConfigurationException;
import io.github.relock.spring.LockFailureHandler;

/**
 * The application's one {@link LockFailureHandler}, or none: chosen once the singletons exist, so that two
 * handlers without a {@code @Primary} fail startup naming both instead of neither being used.
 */
final class LockFailureHandlerChoice implements Supplier<@Nullable LockFailureHandler>, SmartInitializingSingleton {

    /** Chosen when there is no handler: a supplier cannot cache a null. */
    private static final Object NONE = new Object();

    private final ConfigurableListableBeanFactory beanFactory;
    private final SingletonSupplier<Object> chosen = SingletonSupplier.of(this::choose);

    LockFailureHandlerChoice(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        chosen.obtain();
    }

    @Override
    public @Nullable LockFailureHandler get() {
        return chosen.obtain() instanceof LockFailureHandler handler ? handler : null;
    }

    /** The handler, or {@link #NONE}. */
    private Object choose() {
        List<String> names = List.of(BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory,
                LockFailureHandler.class));
        if (names.isEmpty()) {
            return NONE;
        }
        LockFailureHandler handler = beanFactory.getBeanProvider(LockFailureHandler.class).getIfUnique();
        if (handler == null) {
            throw new InvalidLockConfigurationException("There are " + names.size() + " LockFailureHandler beans " + names
                    + " and none of them is @Primary: relock can use only one, and will not pick one at random.",
                    "Keep one LockFailureHandler bean, mark the one to use @Primary, or combine them into one handler "
                            + "that delegates by method.");
        }
        return handler;
    }
}
