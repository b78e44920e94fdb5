package io.github.relock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.relock.sample.demo.RaceDemo;

/**
 * The relock sample: an order-payment service. {@code java -jar lock-sample-app.jar} serves HTTP on
 * port 8080; {@code --demo} runs the payment race instead and exits with its verdict.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
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

    /** The application as {@link #main} runs it: without a web server for {@code --demo}. */
    public static SpringApplication application(String... args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        if (RaceDemo.requested(args)) {
            application.setWebApplicationType(WebApplicationType.NONE);
        }
        return application;
    }
}
