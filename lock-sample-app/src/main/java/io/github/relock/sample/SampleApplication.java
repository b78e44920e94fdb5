package io.github.relock.sample;

import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import io.github.relock.sample.demo.RaceDemo;
import io.github.relock.sample.redis.EmbeddedRedisConfiguration;

/**
 * The relock sample: an order-payment service. {@code java -jar lock-sample-app.jar} serves HTTP on
 * port 8080; {@code --demo} runs the payment race instead and exits with its verdict.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
@Import(EmbeddedRedisConfiguration.class) // lock-redis-process: a redis-server of its own when none answers
public class SampleApplication {

    public static void main(String[] args) {
        // H2's AUTO_SERVER lets a second instance share this one's database over TCP: localhost only
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
        ConfigurableApplicationContext context = application(args).run(args);
        if (RaceDemo.requested(args)) {
            System.exit(SpringApplication.exit(context));
        }
    }

    /** The application as {@link #main} runs it: for {@code --demo}, see {@link #demoWebApplicationType()}. */
    public static SpringApplication application(String... args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        if (RaceDemo.requested(args)) {
            application.setWebApplicationType(demoWebApplicationType());
        }
        return application;
    }

    /**
     * {@code --demo} needs no web server, but the AOT-generated context ({@code -Dspring.aot.enabled=true}) was
     * generated for the web application: there the demo keeps an idle one, on a free port.
     */
    public static WebApplicationType demoWebApplicationType() {
        if (!AotDetector.useGeneratedArtifacts()) {
            return WebApplicationType.NONE;
        }
        // above application.yml's 8080, below a --server.port the user gives
        System.setProperty("server.port", "0");
        return WebApplicationType.SERVLET;
    }
}
