package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;

/** What the public package {@code io.github.relock.core} offers, and what it keeps to itself. */
class PublicApiTest {

    @Test
    void validationHelpersAreNotPartOfThePublicApi() throws Exception {
        List<String> helpers = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isPublic(method.getModifiers()) && Modifier.isStatic(method.getModifiers())
                        && method.getName().startsWith("check")) {
                    helpers.add(type.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertThat(helpers).isEmpty();
    }

    private static List<Class<?>> publicTypes() throws URISyntaxException, ClassNotFoundException {
        File dir = new File(Objects.requireNonNull(LockNames.class.getResource("LockNames.class")).toURI()).getParentFile();
        List<Class<?>> types = new ArrayList<>();
        for (String file : Objects.requireNonNull(dir.list())) {
            if (file.endsWith(".class")) {
                Class<?> type = Class.forName("io.github.relock.core." + file.substring(0, file.length() - 6));
                if (Modifier.isPublic(type.getModifiers())) {
                    types.add(type);
                }
            }
        }
        assertThat(types).contains(LockSettings.class, RedisLockClientSettings.class, LockNames.class);
        return types;
    }
}
