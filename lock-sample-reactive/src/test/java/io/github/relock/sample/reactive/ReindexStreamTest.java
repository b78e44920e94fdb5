package io.github.relock.sample.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.FluxExchangeResult;

import io.github.relock.core.LockNames;
import io.github.relock.core.LockRedisKeys;
import io.github.relock.sample.reactive.jobs.Progress;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Flux;

/** The reindex stream holds its tenant's lock from its first event to its end, or until the client goes away. */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ReindexStreamTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static RunningSample sample;

    @BeforeAll
    static void start() {
        sample = RunningSample.start(redis, "sample.reindex.step-delay=200ms");
    }

    @AfterAll
    static void stop() {
        sample.close();
    }

    @Test
    void aStreamThatRunsToItsEndHoldsOneLockThroughoutAndGivesItBack() {
        List<Progress> events = sample.client().post().uri("/tenants/acme/reindex?steps=5").exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_NDJSON)
                .returnResult(Progress.class).getResponseBody()
                // four more steps (800 ms) to go: the lock must be there
                .doOnNext(event -> assertThat(event.step() > 1 || lockHeld("acme")).as("held at step 1").isTrue())
                .collectList().block(Duration.ofSeconds(30));

        assertThat(events).extracting(Progress::step).containsExactly(1, 2, 3, 4, 5);
        assertThat(events).extracting(Progress::fencingToken).as("one hold for the whole stream").containsOnly(
                events.get(0).fencingToken());
        await().atMost(Duration.ofSeconds(2)).until(() -> !lockHeld("acme"));
    }

    @Test
    void aSecondStreamForTheSameTenantGets409WhileTheFirstRunsAndAnotherTenantIsNotHeldUp() {
        FluxExchangeResult<Progress> first = sample.client().post().uri("/tenants/acme/reindex?steps=10").exchange()
                .returnResult(Progress.class);
        Flux<Progress> firstEvents = first.getResponseBody().cache();
        firstEvents.subscribe();
        await().atMost(Duration.ofSeconds(5)).until(() -> lockHeld("acme"));

        sample.client().post().uri("/tenants/acme/reindex?steps=1").exchange()
                .expectStatus().isEqualTo(409)
                .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.type").isEqualTo("urn:relock-reactive-sample:lock-busy")
                .jsonPath("$.lockKey").isEqualTo(keys("acme").lock())
                .jsonPath("$.waitedMs").value(Number.class, waited -> assertThat(waited.longValue()).isGreaterThanOrEqualTo(500));
        List<Progress> other = sample.client().post().uri("/tenants/globex/reindex?steps=2").exchange()
                .expectStatus().isOk().returnResult(Progress.class).getResponseBody().collectList()
                .block(Duration.ofSeconds(30));

        assertThat(other).hasSize(2);
        assertThat(firstEvents.collectList().block(Duration.ofSeconds(30))).as("the first ran on, undisturbed").hasSize(10);
        await().atMost(Duration.ofSeconds(2)).until(() -> !lockHeld("acme"));
        // the client keeps the lock's channel 500 ms after its last waiter left
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(redis.commands()
                .pubsubNumsub(keys("acme").releaseChannel()).get(keys("acme").releaseChannel()))
                .as("the 409's wait left no subscription behind").isZero());
    }

    @Test
    void aClientThatGoesAwayCancelsTheStreamAndTheLockIsFreeForTheNextRequestAtOnce(CapturedOutput output) {
        List<Progress> seen = sample.client().post().uri("/tenants/initech/reindex?steps=50").exchange()
                .expectStatus().isOk().returnResult(Progress.class).getResponseBody()
                .take(2) // then cancels: the client closes the connection, as curl's Ctrl-C does
                .collectList().block(Duration.ofSeconds(30));
        assertThat(seen).hasSize(2);
        long cancelled = System.nanoTime();

        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10)).until(() -> !lockHeld("initech"));
        long releasedAfterMs = (System.nanoTime() - cancelled) / 1_000_000;
        assertThat(redis.commands().exists(keys("initech").lock())).as("no lock key left in Redis").isZero();
        assertThat(output.getOut()).contains("Reindex of tenant initech cancelled after 2 of 50 steps");
        List<Progress> next = sample.client().post().uri("/tenants/initech/reindex?steps=1").exchange()
                .expectStatus().isOk().returnResult(Progress.class).getResponseBody().collectList()
                .block(Duration.ofSeconds(30));
        assertThat(next).as("the next request gets the lock (released %d ms after the cancel)", releasedAfterMs)
                .singleElement().satisfies(event -> assertThat(event.fencingToken())
                        .isGreaterThan(seen.get(0).fencingToken()));
    }

    private static boolean lockHeld(String tenant) {
        return redis.commands().exists(keys(tenant).lock()) == 1;
    }

    private static LockRedisKeys keys(String tenant) {
        return sample.locks().redisKeys(LockNames.of("reindex", tenant));
    }
}
