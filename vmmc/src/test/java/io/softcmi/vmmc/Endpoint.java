package io.softcmi.vmmc;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/** A Vmmc endpoint on a thread of its own (a CMI context belongs to the threads that joined it). */
final class Endpoint implements AutoCloseable {
    private final ExecutorService thread;
    final Vmmc vmmc;

    Endpoint(String name) {
        thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        vmmc = call(Vmmc::init);
    }

    <T> T call(Callable<T> c) {
        try {
            return thread.submit(c).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new AssertionError(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    private <T> T callOn(Callable<T> c) {
        return call(c);
    }

    <T> T with(Function<Vmmc, T> f) {
        return callOn(() -> f.apply(vmmc));
    }

    void run(Consumer<Vmmc> f) {
        callOn(() -> {
            f.accept(vmmc);
            return null;
        });
    }

    /**
     * Sets the properties a test class's endpoints join their session with: the embedded node,
     * the session's share directory, name and hosts, and a 2 s import timeout.
     */
    static void useSession(java.nio.file.Path share, String session, String hosts) {
        System.clearProperty("softcmi.node");
        System.setProperty("vmmc.share", share.toString());
        System.setProperty("vmmc.session", session);
        System.setProperty("vmmc.hosts", hosts);
        System.setProperty("vmmc.importTimeoutMs", "2000");
    }

    /** Closes the endpoints that were started, last first. */
    static void closeAll(Endpoint... endpoints) {
        for (int i = endpoints.length - 1; i >= 0; i--) {
            if (endpoints[i] != null) {
                endpoints[i].close();
            }
        }
    }

    @Override
    public void close() {
        try {
            run(Vmmc::close);
        } finally {
            thread.shutdownNow();
        }
    }
}
