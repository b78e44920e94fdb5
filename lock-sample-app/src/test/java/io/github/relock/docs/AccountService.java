package io.github.relock.docs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;

/** The annotation guide's examples: keys, names, several keys, fallbacks, leases. */
@Service
public class AccountService {

    private final Map<String, Long> balances = new ConcurrentHashMap<>();

    // tag::default-name[]
    @DistributedLock(key = "#accountId")          // name: io.github.relock.docs.AccountService.close
    public void close(String accountId) {
        balances.remove(accountId);
    }
    // end::default-name[]

    // tag::named[]
    @DistributedLock(name = "accounts", key = "#deposit.accountId()",   // lock:{accounts:<id>}
            waitTime = "2s", leaseTime = "${accounts.lease:10s}")      // both override relock.locks.accounts.*
    @Transactional                                                      // runs inside the lock
    public long deposit(Deposit deposit) {
        return balances.merge(deposit.accountId(), deposit.cents(), Long::sum);
    }
    // end::named[]

    // tag::keys[]
    @DistributedLock(name = "accounts", keys = {"#from", "#to"})   // both locks or neither, in a fixed order
    public void transfer(String from, String to, long cents) {
        balances.merge(from, -cents, Long::sum);
        balances.merge(to, cents, Long::sum);
    }
    // end::keys[]

    // tag::fallback[]
    @DistributedLock(name = "statements", key = "#accountId", waitTime = "0s",
            fallbackMethod = "statementBusy")
    public String statement(String accountId) {
        return accountId + ": " + balances.getOrDefault(accountId, 0L);
    }

    String statementBusy(String accountId, LockNotAcquiredException busy) {   // same parameters, then the exception
        return accountId + ": a statement is being prepared, try again in a minute";
    }
    // end::fallback[]

    /** The balances, in cents, by account. */
    public Map<String, Long> balances() {
        return Map.copyOf(balances);
    }

    /** A deposit into one account. */
    public record Deposit(String accountId, long cents) {
    }
}
