package io.github.relock.sample.reactive.orders;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.core.ReactiveHashOperations;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Repository;

import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Orders in Redis, without blocking: a hash per order ({@code reactive-sample:order:<id>}) and a list of its charges
 * as JSON ({@code ...:charges}). Nothing here refuses a second charge or a second {@code PAID}: that is the lock's job.
 */
@Repository
public class OrderStore {

    private static final String PREFIX = "reactive-sample:";
    private static final String ORDER_IDS = PREFIX + "order-ids";
    private static final String CHARGE_IDS = PREFIX + "charge-ids";

    private final ReactiveStringRedisTemplate redis;
    private final ReactiveHashOperations<String, String, String> hashes;
    private final JsonMapper json;

    public OrderStore(ReactiveStringRedisTemplate redis, JsonMapper json) {
        this.redis = redis;
        this.hashes = redis.opsForHash();
        this.json = json;
    }

    public Mono<Order> create(String customer, BigDecimal amount) {
        Instant now = Instant.now();
        return redis.opsForValue().increment(ORDER_IDS).flatMap(id -> hashes.putAll(orderKey(id), Map.of(
                "customer", customer, "amount", amount.toPlainString(), "status", Order.NEW, "createdAt", now.toString()))
                .thenReturn(new Order(id, customer, amount, Order.NEW, now, List.of())));
    }

    /** The order with its charges, or empty if there is none. */
    public Mono<Order> find(long id) {
        Mono<Map<String, String>> fields = hashes.entries(orderKey(id)).collectMap(Map.Entry::getKey, Map.Entry::getValue);
        Mono<List<Charge>> charges = redis.opsForList().range(chargesKey(id), 0, -1)
                .map(text -> json.readValue(text, Charge.class)).collectList();
        return fields.filter(found -> !found.isEmpty()).zipWith(charges, (found, made) -> new Order(id,
                found.get("customer"), new BigDecimal(found.get("amount")), found.get("status"),
                Instant.parse(found.get("createdAt")), made));
    }

    /** Records a charge of the customer's card: called twice, it charges twice. */
    public Mono<Charge> addCharge(Order order, long fencingToken, String chargedBy) {
        return redis.opsForValue().increment(CHARGE_IDS)
                .map(id -> new Charge(id, order.id(), order.amount(), fencingToken, chargedBy, Instant.now()))
                .flatMap(charge -> redis.opsForList().rightPush(chargesKey(order.id()), json.writeValueAsString(charge))
                        .thenReturn(charge));
    }

    public Mono<Void> markPaid(long id) {
        return hashes.put(orderKey(id), "status", Order.PAID).then();
    }

    private static String orderKey(long id) {
        return PREFIX + "order:" + id;
    }

    private static String chargesKey(long id) {
        return orderKey(id) + ":charges";
    }
}
