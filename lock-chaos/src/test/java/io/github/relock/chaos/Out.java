package io.github.relock.chaos;

/** A client JVM's stdout: event lines for the history, and a few plain lines the parent waits for. */
final class Out {

    private Out() {
    }

    static void emit(Record event) {
        say(Ev.line(event));
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
