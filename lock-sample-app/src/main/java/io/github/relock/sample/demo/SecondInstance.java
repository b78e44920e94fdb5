package io.github.relock.sample.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

import io.github.relock.sample.SampleApplication;

/**
 * Another instance of the application in this JVM: a separate Spring context with its own lock client
 * (a random client id, its own Redis connections), its own connection pool, its own beans, and no web
 * server (an idle one on a free port on the AOT-generated context). It finds the Redis the first instance uses answering, so it shares it, and it uses the same
 * database URL.
 */
final class SecondInstance {

    private SecondInstance() {
    }

    static ConfigurableApplicationContext start(ConfigurableEnvironment environment, List<String> inheritedPrefixes) {
        List<String> args = new ArrayList<>();
        inherited(environment, inheritedPrefixes).forEach((key, value) -> args.add("--" + key + "=" + value));
        args.add("--spring.main.log-startup-info=false");
        return new SpringApplicationBuilder(SampleApplication.class)
                .web(SampleApplication.demoWebApplicationType())
                .bannerMode(Banner.Mode.OFF)
                .registerShutdownHook(false)
                .run(args.toArray(String[]::new));
    }

    /**
     * The resolved values of the keys under these prefixes that this instance was given (command line,
     * test properties, application.yml), except the lock client id, which must differ between instances.
     * Passed as command-line arguments, so that they win over application.yml as they did here.
     */
    private static Map<String, String> inherited(ConfigurableEnvironment environment, List<String> prefixes) {
        Map<String, String> values = new LinkedHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String key : enumerable.getPropertyNames()) {
                    if (prefixes.stream().anyMatch(key::startsWith) && !key.equals("relock.client-id")
                            && !values.containsKey(key)) {
                        String value = environment.getProperty(key);
                        if (value != null) {
                            values.put(key, value);
                        }
                    }
                }
            }
        }
        return values;
    }
}
