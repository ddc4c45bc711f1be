package io.softcmi.samples;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.node.EmbeddedNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two processes share one segment. The parent (this JVM) joins its node (the embedded node when
 * {@code SOFTCMI_NODE} is not set), creates a segment, writes a message into it and sets a counter
 * to 1 with {@code atm_cas}; then it starts a child JVM on the same node
 * ({@code SOFTCMI_NODE} = the parent's node directory) and hands it the segment id. The child looks
 * the segment up ({@link CmiContext#segFromId(long)}), attaches it, reads the message, writes a
 * reply and increments the counter with {@code atm_cas}. The parent waits for the child (bounded
 * time) and reads the reply and the counter, which must be 2.
 *
 * <p>Both processes access the memory directly through their mappings of the same segment file;
 * the node only brokers the control calls. Barriers order the accesses as CMI requires:
 * {@code wmb} after writing, {@code rmb} before reading ({@code atm_cas} is itself a store barrier).
 *
 * <p>Segment layout (one protection unit):
 * <pre>
 *  offset 0     counter, a long updated with atm_cas
 *  offset 64    message from the parent: int length, then UTF-8 bytes (at most 960)
 *  offset 1024  reply from the child, same format
 * </pre>
 */
public final class SharedSegmentExchange {
    /** How long the parent waits for the child by default: it includes the child JVM's start. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    static final long COUNTER = 0;
    static final long MESSAGE = 64;
    static final long REPLY = 1024;
    static final int MAX_TEXT = 960;
    private static final String CHILD = "child";

    private SharedSegmentExchange() {
    }

    /**
     * What the exchange saw.
     *
     * @param segmentId the shared segment's id
     * @param childPid the child process's id
     * @param message the message the parent wrote for the child
     * @param reply the child's reply, as the parent read it
     * @param counter the counter after both processes bumped it (2)
     */
    public record Result(long segmentId, long childPid, String message, String reply, long counter) {
    }

    /**
     * Runs the exchange with {@link #DEFAULT_TIMEOUT}.
     *
     * @param out where to print what happens (the child's output too, prefixed)
     * @return what the exchange saw
     * @throws io.softcmi.cmi.CmiException if a CMI call fails
     * @throws IllegalStateException if the child fails, times out, or the data is not as expected
     */
    public static Result run(PrintStream out) {
        return run(out, DEFAULT_TIMEOUT);
    }

    /**
     * Runs the exchange: this process is the parent. The calling thread must not be associated
     * with a CMI context.
     *
     * @param out where to print what happens (the child's output too, prefixed)
     * @param timeout how long to wait for the child; it is killed after that
     * @return what the exchange saw
     * @throws io.softcmi.cmi.CmiException if a CMI call fails
     * @throws IllegalStateException if the child fails, times out, or the data is not as expected
     */
    public static Result run(PrintStream out, Duration timeout) {
        try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
            Path nodeDir = nodeDirectory();
            out.println("parent: joined node at " + nodeDir);
            long size = ctx.ctlInfo().protUnits();
            CmiSegment seg = ctx.segGet(size, EnumSet.noneOf(SegFlag.class));
            CmiMapping map = ctx.segAt(seg, EnumSet.noneOf(AttachFlag.class));
            ctx.enable(true); // cmi_enb: this thread may load and store CMI segments
            try {
                out.printf("parent: seg_get + seg_at -> segment %d, %d bytes%n", seg.id(), map.size());
                String message = "hello from parent pid " + ProcessHandle.current().pid();
                writeText(map, MESSAGE, message);
                ctx.wmb();
                ctx.atmCas(map, COUNTER, 0, 1);
                out.printf("parent: wrote \"%s\", counter 0 -> 1 (atm_cas)%n", message);
                long childPid = runChild(nodeDir, seg.id(), out, timeout);
                ctx.rmb();
                String reply = readText(map, REPLY);
                long counter = map.getLong(COUNTER);
                out.printf("parent: read reply \"%s\", counter = %d%n", reply, counter);
                if (counter != 2 || reply.isEmpty()) {
                    throw new IllegalStateException("expected counter 2 and a reply, got counter " + counter
                        + " and reply \"" + reply + "\"");
                }
                return new Result(seg.id(), childPid, message, reply, counter);
            } finally {
                ctx.segDt(map);
                ctx.segRemove(seg);
            }
        }
    }

    /**
     * The node directory this JVM uses, for the child's {@code SOFTCMI_NODE}: the embedded node's
     * if it runs, otherwise the daemon this process joined.
     */
    private static Path nodeDirectory() {
        Path embedded = EmbeddedNode.directory();
        if (embedded != null) {
            return embedded;
        }
        String dir = System.getProperty("softcmi.node");
        if (dir == null || dir.isBlank()) {
            dir = System.getenv("SOFTCMI_NODE");
        }
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("cannot tell which node this process joined");
        }
        return Path.of(dir);
    }

    private static long runChild(Path nodeDir, long segmentId, PrintStream out, Duration timeout) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
            System.getProperty("java.class.path"), SharedSegmentExchange.class.getName(), CHILD,
            Long.toString(segmentId)));
        pb.environment().put("SOFTCMI_NODE", nodeDir.toString());
        pb.redirectErrorStream(true);
        Process child;
        try {
            child = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the child JVM " + java, e);
        }
        out.printf("parent: started child pid %d with segment id %d%n", child.pid(), segmentId);
        Thread relay = Thread.ofPlatform().daemon().name("child-output").start(() -> relay(child, out));
        try {
            if (!child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
                throw new IllegalStateException("child pid " + child.pid() + " did not finish within " + timeout);
            }
            relay.join(5_000);
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the child", e);
        }
        if (child.exitValue() != 0) {
            throw new IllegalStateException("child pid " + child.pid() + " exited with status " + child.exitValue());
        }
        return child.pid();
    }

    private static void relay(Process child, PrintStream out) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.println("  child | " + line);
            }
        } catch (IOException e) {
            out.println("  child | (output lost: " + e.getMessage() + ")");
        }
    }

    /**
     * The child's side: joins the node named by {@code SOFTCMI_NODE}, attaches the segment, reads
     * the message, writes a reply and increments the counter.
     *
     * @param segmentId the segment the parent created
     * @param out where to print what happens
     */
    static void child(long segmentId, PrintStream out) {
        try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
            CmiSegment seg = ctx.segFromId(segmentId);
            CmiMapping map = ctx.segAt(seg, EnumSet.noneOf(AttachFlag.class));
            ctx.enable(true);
            try {
                out.printf("segFromId(%d) + seg_at -> %d bytes%n", segmentId, map.size());
                ctx.rmb();
                out.printf("read \"%s\"%n", readText(map, MESSAGE));
                String reply = "hello back from child pid " + ProcessHandle.current().pid();
                writeText(map, REPLY, reply);
                ctx.wmb();
                long old;
                do {
                    old = map.getLong(COUNTER);
                } while (ctx.atmCas(map, COUNTER, old, old + 1) != old);
                out.printf("wrote \"%s\", counter %d -> %d (atm_cas)%n", reply, old, old + 1);
            } finally {
                ctx.segDt(map);
            }
        }
    }

    static void writeText(CmiMapping map, long offset, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_TEXT) {
            throw new IllegalArgumentException("text longer than " + MAX_TEXT + " bytes");
        }
        map.put(offset + Integer.BYTES, bytes, 0, bytes.length);
        map.putInt(offset, bytes.length);
    }

    static String readText(CmiMapping map, long offset) {
        int length = map.getInt(offset);
        if (length < 0 || length > MAX_TEXT) {
            throw new IllegalStateException("corrupt text length " + length + " at offset " + offset);
        }
        byte[] bytes = new byte[length];
        map.get(offset + Integer.BYTES, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Runs the exchange from the command line: with no arguments as the parent, with
     * {@code child SEGMENT_ID} as the child (what the parent starts). Exits with status 1 on failure.
     *
     * @param args nothing, or {@code child} and the segment id
     */
    public static void main(String[] args) {
        try {
            if (args.length == 2 && args[0].equals(CHILD)) {
                child(Long.parseLong(args[1]), System.out);
            } else if (args.length == 0) {
                System.out.println(run(System.out));
            } else {
                System.err.println("usage: SharedSegmentExchange [child SEGMENT_ID]");
                System.exit(2);
            }
        } catch (RuntimeException e) {
            System.out.println("FAILED: " + e);
            System.out.flush();
            System.exit(1);
        }
    }
}
