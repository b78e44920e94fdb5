package io.github.relock.sample;

import static io.github.relock.sample.TestSupport.post;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.DynamicPropertyRegistry;

import com.jayway.jsonpath.JsonPath;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.sample.orders.OrderRepository;

/**
 * {@code spring.threads.virtual.enabled=true} (set here, whatever application.yml says): Tomcat serves every
 * request on a virtual thread, and paying an order there (the blocking lock, the nested re-entry, the transaction,
 * 16 payers waiting for one lock) works as on platform threads. JDK 21+ only; {@code .ci/run}'s JDK 25 pass runs it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.threads.virtual.enabled=true")
@EnabledForJreRange(minVersion = 21)
@DirtiesContext
class VirtualThreadsTest {

    static final int REDIS_PORT = TestSupport.freePort();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", () -> REDIS_PORT);
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:virtual-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @LocalServerPort
    int port;

    @Autowired
    OrderRepository orders;

    @Autowired
    RedisLockClient lockClient;

    @Test
    void sixteenPayersOnVirtualThreadsPayAnOrderOnceAndTheWinnerRanOnAVirtualThread() throws Exception {
        String base = "http://127.0.0.1:" + port;
        HttpResponse<String> created = post(base + "/orders", "{\"customer\":\"vera\",\"amount\":12.00}");
        long id = ((Number) JsonPath.read(created.body(), "$.id")).longValue();

        List<HttpResponse<String>> responses = TestSupport.postAtOnce(Collections.nCopies(16, base + "/orders/" + id + "/pay"));

        assertThat(responses).filteredOn(response -> response.statusCode() == 409).hasSize(15);
        assertThat(responses).filteredOn(response -> response.statusCode() == 200).singleElement().satisfies(paid -> {
            assertThat((Boolean) JsonPath.read(paid.body(), "$.virtualThread")).as("pay() ran on a virtual thread").isTrue();
            assertThat((Integer) JsonPath.read(paid.body(), "$.nestedHoldCount")).as("re-entered").isEqualTo(2);
        });
        assertThat(orders.countPayments(id)).isEqualTo(1);
        assertThat(lockClient.getLock(LockNames.of("payments", Long.toString(id))).isLocked()).isFalse();
    }
}
