package io.github.relock.spring.internal;

import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

import io.github.relock.core.LockLostException;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.internal.held.ThreadLockScope;

/**
 * Stops a transaction from committing when a {@code @DistributedLock} call on the committing thread
 * has lost its lock. The transaction manager calls it just before the actual commit; throwing here
 * makes it roll back and rethrow, so the caller gets the {@link LockLostException}.
 *
 * <p>This is what makes the default advice order safe: the lock is taken outside
 * {@code @Transactional}, so at that point there is no transaction yet to register with.
 */
public final class LockLostTransactionGuard implements TransactionExecutionListener {

    @Override
    public void beforeCommit(TransactionExecution transaction) {
        ReentrantDistributedLock lost = ThreadLockScope.firstLost();
        if (lost != null) {
            throw new LockLostException(lost.getName(), lost.getKey(), "Lock '" + lost.getName() + "' (" + lost.getKey()
                    + ") was lost while the method ran, so its transaction" + describe(transaction)
                    + " was rolled back instead of committed: another holder may have run meanwhile");
        }
    }

    private static String describe(TransactionExecution transaction) {
        String name = transaction.getTransactionName();
        return name.isEmpty() ? "" : " '" + name + "'";
    }

    @Override
    public String toString() {
        return "relock LockLostTransactionGuard";
    }
}
