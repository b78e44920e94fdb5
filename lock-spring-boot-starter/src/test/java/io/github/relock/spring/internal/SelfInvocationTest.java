package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;

/**
 * A call from inside a bean to one of its own {@code @DistributedLock} methods skips the proxy and runs
 * unlocked: startup reports it (relock.self-invocation=warn, the default), fails on it (fail) or says
 * nothing (ignore).
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void aCallFromInsideTheClassIsReportedAtStartup(CapturedOutput output) {
        runner.withBean("payments", CallsItself.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output).contains("WARN").contains(CallsItself.class.getName() + ".payAll(List)",
                    "calls pay(String)", "@Lazy", "another bean");
            assertThat(output).as("behind a branch").contains(CallsItself.class.getName() + ".payChecked(String)");
            assertThat(output).as("an inherited caller is found too")
                    .contains(InheritingCaller.class.getName() + ".payTwice(String)");
        });
    }

    @Test
    void withFailTheCallStopsStartup() {
        runner.withBean("payments", CallsItself.class).withPropertyValues("relock.self-invocation=fail")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("bean 'payments'", "payAll(List)", "pay(String)",
                            "runs without its lock");
                    assertThat(analysis.getAction()).contains("@Lazy", "another bean", "relock.self-invocation");
                });
    }

    @Test
    void withIgnoreNothingIsSaid(CapturedOutput output) {
        runner.withBean("payments", CallsItself.class).withPropertyValues("relock.self-invocation=ignore")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).doesNotContain("calls pay(String)");
                });
    }

    @Test
    void aClassThatDoesNotCallItsOwnLockedMethodsIsSilent(CapturedOutput output) {
        runner.withBean("payments", CallsOthers.class).withPropertyValues("relock.self-invocation=fail")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).doesNotContain("runs without its lock");
                });
    }

    public static class InheritingCaller {

        @DistributedLock(name = "payments", key = "#id")
        public String pay(String id) {
            return "paid " + id;
        }

        public String payTwice(String id) {
            return pay(id) + pay(id);
        }
    }

    public static class CallsItself extends InheritingCaller {

        public String payChecked(String id) {
            try {
                return id.isEmpty() ? "none" : pay(id);
            }
            catch (RuntimeException ex) {
                return pay("again");
            }
        }

        public void payAll(java.util.List<String> ids) {
            ids.forEach(id -> System.out.println(id));
            for (String id : ids) {
                pay(id);
            }
        }
    }

    /** Calls its own locked methods the recommended way: through its proxy, injected into itself. */
    public static class CallsOthers {

        private final StringBuilder log = new StringBuilder();

        @org.springframework.beans.factory.annotation.Autowired
        @org.springframework.context.annotation.Lazy
        CallsOthers self;

        public String payAll(java.util.List<String> ids) {
            ids.forEach(id -> self.pay(id));
            long total = 0L;
            for (String id : ids) {
                total += self.pay(id).length() + (ids.isEmpty() ? 1L : 2L);
            }
            return self.pay(ids.isEmpty() ? "none" : ids.get(0)) + total;
        }

        @DistributedLock(name = "payments", key = "#id")
        public String pay(String id) {
            log.append(id);
            return format(id);
        }

        public String format(String id) {
            return "paid " + id;
        }

        public String payOther(CallsOthers other, String id) {
            return other.toString() + id;
        }
    }
}
