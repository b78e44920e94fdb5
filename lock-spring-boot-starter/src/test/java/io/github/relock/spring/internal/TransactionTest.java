package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * The lock and {@code @Transactional} on an embedded H2 database: by default the lock is held until after
 * the commit, so read-modify-write under the lock loses no update; and work done under a lock that was
 * lost is rolled back instead of committed.
 */
@Timeout(60)
class TransactionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis)
            .withPropertyValues("relock.wait-time=20s", "relock.watchdog-timeout=2s");

    @Test
    void byDefaultTheLockIsReleasedAfterCommitSoNoUpdateIsLost() {
        runner.withUserConfiguration(TransactionInsideLock.class).run(context -> {
            List<Long> seen = racingIncrements(context.getBean(Counter.class));
            assertThat(seen).as("the second call read what the first committed").containsExactly(0L, 1L);
            assertThat(context.getBean(Counter.class).value()).isEqualTo(2);
        });
    }

    @Test
    void withTheOrderReversedTheLockIsReleasedBeforeCommitAndAnUpdateIsLost() {
        runner.withUserConfiguration(TransactionOutsideLock.class).run(context -> {
            List<Long> seen = racingIncrements(context.getBean(Counter.class));
            assertThat(seen).as("the second call read before the first committed").containsExactly(0L, 0L);
            assertThat(context.getBean(Counter.class).value()).isEqualTo(1);
        });
    }

    /**
     * The first increment commits slowly; the second starts while the first is committing. Returns what
     * each read before writing.
     */
    private static List<Long> racingIncrements(Counter counter) throws Exception {
        CountDownLatch committing = new CountDownLatch(1);
        CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> counter.increment(committing, 1500));
        assertThat(committing.await(20, TimeUnit.SECONDS)).isTrue();
        long second = counter.increment(new CountDownLatch(1), 0);
        return List.of(first.get(30, TimeUnit.SECONDS), second);
    }

    @Test
    void aLockLostWhileTheMethodRunsRollsItsTransactionBack() {
        runner.withUserConfiguration(TransactionInsideLock.class).run(context -> {
            Counter counter = context.getBean(Counter.class);
            assertThatThrownBy(counter::insertAndLoseTheLock).isInstanceOf(LockLostException.class)
                    .hasMessageContaining("rolled back");
            assertThat(counter.rows()).isZero();
        });
    }

    @Test
    void withoutTheGuardTheSameLossWouldCommit() {
        runner.withUserConfiguration(TransactionInsideLock.class).run(context -> {
            context.getBean(DataSourceTransactionManager.class).setTransactionExecutionListeners(List.of());
            Counter counter = context.getBean(Counter.class);
            assertThatThrownBy(counter::insertAndLoseTheLock).as("the caller still hears of it, too late")
                    .isInstanceOf(LockLostException.class);
            assertThat(counter.rows()).isEqualTo(1);
        });
    }

    @Test
    void aFixedLeaseThatRunsOutWhileTheMethodRunsRollsItsTransactionBack() {
        runner.withUserConfiguration(TransactionInsideLock.class).run(context -> {
            Counter counter = context.getBean(Counter.class);
            assertThatThrownBy(counter::insertAndOutliveTheLease).isInstanceOf(LockLostException.class);
            assertThat(counter.rows()).isZero();
        });
    }

    @Test
    void aLockLostOutsideAnyTransactionFailsTheCallWhenItReturns() {
        runner.withUserConfiguration(TransactionInsideLock.class).run(context -> {
            Counter counter = context.getBean(Counter.class);
            assertThatThrownBy(counter::loseTheLockWithoutTransaction).isInstanceOf(LockLostException.class)
                    .hasMessageContaining("rows:r");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionInsideLock extends Database {
    }

    /** The reversed order: the transaction advice wraps the lock advice. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionOutsideLock extends Database {
    }

    abstract static class Database {

        @Bean
        DataSource dataSource() {
            DataSource dataSource = new DriverManagerDataSource(
                    "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000");
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("create table counter (id int primary key, v bigint not null)");
            jdbc.execute("insert into counter values (1, 0)");
            jdbc.execute("create table item (id int primary key)");
            return dataSource;
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Counter counter(DataSource dataSource, RedisLockClient client) {
            return new Counter(new JdbcTemplate(dataSource), client);
        }
    }

    public static class Counter {

        private final JdbcTemplate jdbc;
        private final RedisLockClient client;

        public Counter(JdbcTemplate jdbc, RedisLockClient client) {
            this.jdbc = jdbc;
            this.client = client;
        }

        /** The Redis key of the lock the annotated methods below take. */
        private String rowsLock() {
            return client.redisKeys(LockNames.of("rows", "r")).lock();
        }

        /** Read, then write one more; the commit signals {@code committing} and then takes its time. */
        @DistributedLock(name = "counter")
        @Transactional
        public long increment(CountDownLatch committing, long commitMillis) {
            long read = jdbc.queryForObject("select v from counter where id = 1", Long.class);
            jdbc.update("update counter set v = ? where id = 1", read + 1);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    committing.countDown();
                    sleep(commitMillis);
                }
            });
            return read;
        }

        @DistributedLock(name = "rows", key = "'r'")
        @Transactional
        public void insertAndLoseTheLock() {
            jdbc.update("insert into item values (1)");
            redis.commands().del(rowsLock());
            awaitLossNoticed();
        }

        @DistributedLock(name = "rows", key = "'r'", leaseTime = "300ms")
        @Transactional
        public void insertAndOutliveTheLease() {
            jdbc.update("insert into item values (1)");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.commands().exists(rowsLock()) == 0);
        }

        @DistributedLock(name = "rows", key = "'r'")
        public void loseTheLockWithoutTransaction() {
            redis.commands().del(rowsLock());
            awaitLossNoticed();
        }

        public long value() {
            return jdbc.queryForObject("select v from counter where id = 1", Long.class);
        }

        public int rows() {
            return jdbc.queryForObject("select count(*) from item", Integer.class);
        }

        /** The watchdog's next renewal finds the key gone; a lost lock is no longer listed as held. */
        private void awaitLossNoticed() {
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> client.heldLocks().isEmpty());
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
