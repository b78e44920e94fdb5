package io.github.relock.core.internal.command;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Cuts the holds due for renewal into script calls: at most {@value #SIZE} per call, and on a cluster one
 * slot per call, since one script may not touch keys of two slots.
 */
final class RenewalBatches {

    /** Holds per renewal call: large batches, but no single script that blocks Redis for long. */
    static final int SIZE = 256;

    private RenewalBatches() {
    }

    /**
     * @param lockKey the lock key of a hold, UTF-8
     * @param perSlot whether to split by Cluster slot (right for either topology, so use it when unsure)
     */
    static <T> List<List<T>> of(Collection<T> holds, Function<T, byte[]> lockKey, boolean perSlot) {
        Map<Integer, List<T>> bySlot = new LinkedHashMap<>();
        for (T hold : holds) {
            int slot = perSlot ? ClusterSlotHashUtil.calculateSlot(lockKey.apply(hold)) : 0;
            bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(hold);
        }
        List<List<T>> batches = new ArrayList<>();
        for (List<T> slotHolds : bySlot.values()) {
            for (int from = 0; from < slotHolds.size(); from += SIZE) {
                batches.add(slotHolds.subList(from, Math.min(slotHolds.size(), from + SIZE)));
            }
        }
        return batches;
    }
}
