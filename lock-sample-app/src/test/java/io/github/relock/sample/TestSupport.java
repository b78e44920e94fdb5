package io.github.relock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Free ports, plain HTTP calls, and port checks for the sample's tests. */
public final class TestSupport {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestSupport() {
    }

    /** A port nothing listens on right now, on 127.0.0.1: never Redis's 6379 or the sample's 6390 by design. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Whether something accepts connections on 127.0.0.1:port. */
    public static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        }
        catch (ConnectException ex) {
            return false;
        }
        catch (IOException ex) {
            return false;
        }
    }

    public static HttpResponse<String> get(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).GET());
    }

    public static HttpResponse<String> post(String url, String json) {
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public static HttpResponse<String> post(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** POSTs to every URL at the same moment, one thread each; the responses in the order of the URLs. */
    public static List<HttpResponse<String>> postAtOnce(List<String> urls)
            throws InterruptedException, ExecutionException, TimeoutException {
        ExecutorService pool = Executors.newFixedThreadPool(urls.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (String url : urls) {
                calls.add(pool.submit(() -> {
                    go.await();
                    return post(url);
                }));
            }
            go.countDown();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> call : calls) {
                responses.add(call.get(60, TimeUnit.SECONDS));
            }
            return responses;
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** The content type of a response, or "" without one. */
    public static String contentType(HttpResponse<?> response) {
        return response.headers().firstValue("Content-Type").orElse("");
    }
}
