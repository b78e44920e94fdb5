package io.github.relock.spring.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostListener;

/**
 * Tells the calls that hold locks under an explicit owner (methods returning a {@code CompletionStage})
 * when one of their locks is lost, so their callers hear of it while the work may still run, not only
 * once it ends. One listener on the client; calls register by owner id.
 */
final class LockLossNotifier implements LockLostListener {

    private final Map<String, Consumer<LockLostEvent>> byOwner = new ConcurrentHashMap<>();

    void register(String ownerId, Consumer<LockLostEvent> onLoss) {
        byOwner.put(ownerId, onLoss);
    }

    void unregister(String ownerId) {
        byOwner.remove(ownerId);
    }

    @Override
    public void lockLost(LockLostEvent event) {
        Consumer<LockLostEvent> onLoss = byOwner.get(event.ownerId());
        if (onLoss != null) {
            onLoss.accept(event);
        }
    }
}
