package io.github.relock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.relock.sample.demo.RaceDemo;
import io.github.relock.sample.demo.RaceResult;
import io.github.relock.sample.redis.EmbeddedRedisServer;

/** {@code --demo} as {@code main} runs it, minus the final {@code System.exit}. */
@ExtendWith(OutputCaptureExtension.class)
class RaceDemoTest {

    @Test
    void theDemoRecordsExactlyOnePaymentPrintsItsTableAndExitsZero(CapturedOutput output) {
        int redisPort = TestSupport.freePort();
        String[] args = { "--demo", "--spring.data.redis.port=" + redisPort,
                "--spring.datasource.url=jdbc:h2:mem:demo-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1" };

        ConfigurableApplicationContext context = SampleApplication.application(args).run(args);
        RaceResult result = context.getBean(RaceDemo.class).getResult();
        long redisPid = context.getBean(EmbeddedRedisServer.class).pid();
        int exitCode = SpringApplication.exit(context);

        assertThat(exitCode).isZero();
        assertThat(result.clients()).hasSize(2);
        assertThat(result.clients().get(0).clientId()).isNotEqualTo(result.clients().get(1).clientId());
        assertThat(result.attempts()).isEqualTo(32);
        assertThat(result.paid()).isEqualTo(1);
        assertThat(result.lockBusy() + result.alreadyPaid()).isEqualTo(31);
        assertThat(result.failed()).isZero();
        assertThat(result.paymentsInDatabase()).isEqualTo(1);
        assertThat(output.getOut())
                .contains("Race demo: 2 lock clients x 16 threads pay order " + result.orderId())
                .containsPattern("attempts +16 +16 +32")
                .containsPattern("paid +[01] +[01] +1")
                .containsPattern("payments in the database +1 +OK: exactly one")
                .contains("No Redis answered at 127.0.0.1:" + redisPort + ", so started an embedded redis-server")
                .contains("Using the Redis that answers at 127.0.0.1:" + redisPort + " (not started by this application)")
                .contains("Stopped the embedded redis-server");
        assertThat(TestSupport.listening(redisPort)).as("the embedded Redis stopped with the application").isFalse();
        assertThat(ProcessHandle.of(redisPid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
    }
}
