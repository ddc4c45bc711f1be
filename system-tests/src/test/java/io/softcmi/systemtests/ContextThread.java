package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiCallbacks;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiVersion;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A second CMI context in this JVM, living on a thread of its own: {@code Cmi.init} gives each
 * call a context of its own (a session of its own with the node, so a different creator as far
 * as the node is concerned), and a thread can be associated with only one context. Work is handed
 * to that thread; whatever it throws (assertion failures included) is rethrown to the caller.
 */
final class ContextThread implements AutoCloseable {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final ExecutorService executor;
    private final CmiContext context;
    private boolean closed;

    private ContextThread(ExecutorService executor, CmiContext context) {
        this.executor = executor;
        this.context = context;
    }

    /**
     * Starts a thread and initializes a context on it, with CMI access enabled ({@code cmi_enb}) on
     * that thread.
     *
     * @param name thread name
     * @param callbacks trace callbacks, or null
     * @return the context thread
     */
    static ContextThread open(String name, CmiCallbacks callbacks) {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        try {
            return new ContextThread(executor, submit(executor, () -> {
                CmiContext c = Cmi.init(new CmiVersion(1, 1), callbacks);
                c.enable(true); // cmi_enb: its thread may load and store CMI segments
                return c;
            }));
        } catch (RuntimeException | Error e) {
            executor.shutdownNow();
            throw e;
        }
    }

    /**
     * @param name thread name
     * @return a context thread with default callbacks
     */
    static ContextThread open(String name) {
        return open(name, null);
    }

    /** @return the context (call it only through {@link #call} / {@link #run}) */
    CmiContext context() {
        return context;
    }

    /**
     * Runs {@code work} on the context's thread.
     *
     * @param work what to do with the context
     * @param <T> result type
     * @return its result
     */
    <T> T call(Function<CmiContext, T> work) {
        return submit(executor, () -> work.apply(context));
    }

    /**
     * Runs {@code work} on the context's thread.
     *
     * @param work what to do with the context
     */
    void run(Consumer<CmiContext> work) {
        submit(executor, () -> {
            work.accept(context);
            return null;
        });
    }

    /** Ends the context ({@code fini} on its thread) and stops the thread. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            run(c -> {
                try {
                    c.fini();
                } catch (CmiException alreadyGone) {
                    // The test ended the association itself.
                }
            });
        } finally {
            executor.shutdownNow();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs a task on a new thread that is associated with no CMI context, and waits for it.
     *
     * @param task the task
     * @param <T> result type
     * @return its result
     */
    static <T> T onFreshThread(Callable<T> task) {
        ExecutorService e = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fresh-thread");
            t.setDaemon(true);
            return t;
        });
        try {
            return submit(e, task);
        } finally {
            e.shutdownNow();
        }
    }

    /**
     * Runs an action on a new thread that is associated with no CMI context, and waits for it.
     *
     * @param action the action
     */
    static void runOnFreshThread(Runnable action) {
        onFreshThread(() -> {
            action.run();
            return null;
        });
    }

    private static <T> T submit(ExecutorService executor, Callable<T> task) {
        Future<T> f = executor.submit(task);
        try {
            return f.get(Deadline.scaled(CALL_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new AssertionError("work on another thread did not finish in " + CALL_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
