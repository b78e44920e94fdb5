package io.github.relock.core.testing;

/**
 * Starts virtual threads from tests compiled for Java 17, reaching {@code Thread.ofVirtual()} reflectively; the
 * tests that use it run on Java 21 and later.
 */
public final class VirtualThreads {

    /** Work that may throw. */
    public interface Work {
        void run() throws Exception;
    }

    private VirtualThreads() {
    }

    /** {@code Thread.ofVirtual().start(task)}; an exception thrown by {@code task} ends the thread. */
    public static Thread start(Work task) throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Runnable runnable = () -> {
            try {
                task.run();
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        };
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                .invoke(builder, runnable);
    }
}
