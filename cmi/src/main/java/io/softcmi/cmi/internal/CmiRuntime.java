package io.softcmi.cmi.internal;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiCallbacks;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Behind {@link Cmi}: {@code cmi_ini} (version negotiation, choosing the node, opening the
 * session) and {@code cmi_get_error}.
 *
 * <p>The node is the daemon named by system property {@code softcmi.node} or environment
 * variable {@code SOFTCMI_NODE} (its {@code --dir}); without either, this JVM's embedded node,
 * unless {@code softcmi.embedded=false}.
 */
public final class CmiRuntime {
    /** Vendor id of softcmi contexts and handles. */
    public static final int VENDOR_ID = 0x50f7;
    /** Device id: the software implementation. */
    public static final int DEVICE_ID = 1;
    /** Protection unit, segment alignment and {@code seg_prot_sz}: one page. */
    public static final long PAGE = 4096;
    /** Alignment of large-page segments. */
    public static final long LARGE_PAGE = 2L << 20;
    /** Most contexts open at once in one process ({@code CMI_ERR_NOMEM} beyond). */
    public static final int MAX_CONTEXTS = 64;

    private static final Set<ContextImpl> OPEN = ConcurrentHashMap.newKeySet();

    private CmiRuntime() {
    }

    /**
     * {@code cmi_ini}.
     *
     * @param requested the client's highest API version
     * @param callbacks trace callbacks, or null
     * @return the context, associated with the calling thread
     */
    public static CmiContext init(CmiVersion requested, CmiCallbacks callbacks) {
        ThreadState ts = ThreadState.current();
        if (requested == null) {
            throw Errors.fail(CmiError.INVAL, "requested version must not be null");
        }
        CmiVersion lib = Cmi.LIBRARY_VERSION;
        if (requested.major() != lib.major()) {
            throw Errors.fail(CmiError.NOTSUPP, "API version " + requested + " is not supported; this library speaks "
                + lib.major() + ".x up to " + lib);
        }
        if (ts.context != null) {
            throw Errors.fail(CmiError.BOUND, "calling thread is already associated with a context");
        }
        if (OPEN.size() >= MAX_CONTEXTS) {
            throw Errors.fail(CmiError.NOMEM, "the maximum of " + MAX_CONTEXTS + " contexts are already open");
        }
        CmiVersion negotiated = new CmiVersion(lib.major(), Math.min(requested.minor(), lib.minor()));
        Tracer tracer = new Tracer(callbacks);
        NodeChannel channel = NodeChannel.connect(nodeDirectory());
        ContextImpl context;
        try {
            ControlMessage.HelloReply hello = channel.call(new ControlMessage.Hello(Frame.VERSION,
                ProcessHandle.current().pid(), processName(), negotiated.verno()), ControlMessage.HelloReply.class);
            context = new ContextImpl(channel, negotiated, hello, tracer);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
        OPEN.add(context);
        context.bind(ts);
        context.start();
        ts.lastError = null;
        tracer.trace(TraceFacility.INI, TraceLevel.INFO, "cmi_ini " + negotiated + " -> " + context);
        return context;
    }

    private static Path nodeDirectory() {
        SoftcmiLogging.configure(false);
        String dir = System.getProperty("softcmi.node");
        if (dir == null || dir.isBlank()) {
            dir = System.getenv("SOFTCMI_NODE");
        }
        if (dir != null && !dir.isBlank()) {
            Path p = Path.of(dir);
            SoftcmiLogging.nodeName(p.getFileName() == null ? dir : p.getFileName().toString());
            return p;
        }
        if ("false".equalsIgnoreCase(System.getProperty("softcmi.embedded"))) {
            throw Errors.fail(CmiError.INIT, "no CMI node configured (SOFTCMI_NODE) and the embedded node is disabled");
        }
        for (EmbeddedNodeLauncher launcher : ServiceLoader.load(EmbeddedNodeLauncher.class)) {
            try {
                return launcher.ensureStarted();
            } catch (RuntimeException e) {
                throw Errors.fail(CmiError.INIT, "the embedded CMI node cannot start: " + e.getMessage());
            }
        }
        throw Errors.fail(CmiError.INIT, "no CMI node configured (SOFTCMI_NODE) and softcmi-node is not on the class path");
    }

    private static String processName() {
        return ProcessHandle.current().info().command().map(c -> Path.of(c).getFileName().toString()).orElse("java")
            + " " + System.getProperty("sun.java.command", "").split(" ")[0];
    }

    static void contextEnded(ContextImpl context) {
        OPEN.remove(context);
    }

    /**
     * {@code cmi_get_error}.
     *
     * @return the calling thread's last error, null after success
     */
    public static CmiError lastError() {
        return ThreadState.current().lastError;
    }
}
