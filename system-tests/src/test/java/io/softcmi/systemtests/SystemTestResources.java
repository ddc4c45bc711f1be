package io.softcmi.systemtests;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the processes a test (or a test class) starts, and their logs. Register it as an instance
 * field ({@link #perTest()}) or a static field ({@link #perClass()}) with
 * {@code @RegisterExtension}. After the test (or class) every process is stopped and its files
 * removed, even when the test failed; the logs under {@code target/system-test-logs} are deleted
 * when everything passed and kept (and named in the failure) otherwise.
 */
final class SystemTestResources implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
        AfterAllCallback, TestWatcher {
    private static final Path LOG_ROOT = Path.of(System.getProperty("basedir", "."), "target", "system-test-logs");

    private final boolean perClass;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private Path logDir;
    private int clients;
    private boolean anyTestFailed;

    private SystemTestResources(boolean perClass) {
        this.perClass = perClass;
    }

    /** @return resources released after each test */
    static SystemTestResources perTest() {
        return new SystemTestResources(false);
    }

    /** @return resources released after the test class */
    static SystemTestResources perClass() {
        return new SystemTestResources(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (perClass) {
            logDir = LOG_ROOT.resolve(context.getRequiredTestClass().getSimpleName()).resolve("class");
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            logDir = LOG_ROOT.resolve(context.getRequiredTestClass().getSimpleName())
                .resolve(context.getRequiredTestMethod().getName());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            release(context.getExecutionException().isPresent());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (perClass) {
            release(anyTestFailed || context.getExecutionException().isPresent());
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        anyTestFailed = true;
    }

    /** @return this test's log directory */
    Path logDir() {
        if (logDir == null) {
            throw new IllegalStateException("SystemTestResources must be registered with @RegisterExtension");
        }
        return logDir;
    }

    /**
     * Starts a {@code cmid} owned by this test.
     *
     * @param name node name
     * @param extraArgs more {@code cmid} options
     * @return the running node
     * @throws IOException if it cannot be started
     */
    NodeProcess node(String name, String... extraArgs) throws IOException {
        return own(NodeProcess.start(logDir(), name, extraArgs));
    }

    /**
     * Starts a client process owned by this test.
     *
     * @param node the node it joins
     * @return the client, its context open
     * @throws IOException if it cannot be started
     */
    ClientProcess client(NodeProcess node) throws IOException {
        return client(node.directory());
    }

    /**
     * Starts a client process owned by this test.
     *
     * @param nodeDirectory the node it joins ({@code SOFTCMI_NODE})
     * @return the client, its context open
     * @throws IOException if it cannot be started
     */
    ClientProcess client(Path nodeDirectory) throws IOException {
        return own(ClientProcess.start(logDir(), "client" + (++clients), nodeDirectory));
    }

    /**
     * Makes this test own something to close afterwards (in reverse order of ownership).
     *
     * @param resource what to close
     * @param <T> its type
     * @return {@code resource}
     */
    <T extends AutoCloseable> T own(T resource) {
        owned.add(resource);
        return resource;
    }

    private static void deleteIfEmpty(Path dir) {
        try {
            java.nio.file.Files.deleteIfExists(dir);
        } catch (IOException notEmpty) {
            // Logs of another test are kept there.
        }
    }

    private void release(boolean failed) throws Exception {
        Throwable problem = null;
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception | Error e) {
                if (problem == null) {
                    problem = e;
                } else {
                    problem.addSuppressed(e);
                }
            }
        }
        owned.clear();
        if (logDir != null) {
            if (failed || problem != null) {
                System.err.println("system test logs kept in " + logDir.toAbsolutePath());
            } else {
                Files2.deleteTree(logDir);
                deleteIfEmpty(logDir.getParent());
            }
        }
        if (problem instanceof Exception e) {
            throw e;
        }
        if (problem != null) {
            throw (Error) problem;
        }
    }
}
