package io.github.relock.docs;

import java.time.LocalDate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockMode;

/** The annotation guide's read-write and fair examples. */
@Service
public class DocumentService {

    private final Map<Long, String> documents = new ConcurrentHashMap<>();

    // tag::read-write[]
    @DistributedLock(name = "documents", key = "#id", mode = LockMode.READ)    // readers together
    public String read(long id) {
        return documents.getOrDefault(id, "");
    }

    @DistributedLock(name = "documents", key = "#id", mode = LockMode.WRITE)   // a writer alone
    public void write(long id, String text) {
        documents.put(id, text);
    }
    // end::read-write[]

    // tag::fair[]
    @DistributedLock(name = "daily-reports", key = "#day", fair = true)   // first come, first served
    public String render(LocalDate day) {
        return "report " + day;
    }
    // end::fair[]
}
