package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The main class of CMI client processes in the cross-node system tests: a command interpreter
 * like {@link Workers}, with the calls that span nodes. Handles, tokens and node addresses travel
 * between processes as hex strings of their {@code toBytes()}, through this process's stdin and
 * stdout. It joins the node named by {@code SOFTCMI_NODE}, replies {@code READY pid}, and answers
 * every command with one line starting with {@value #REPLY}.
 *
 * <pre>
 * node                                   -> NODE hex                (nodeAddress().toBytes())
 * enable | disable                       -> OK                      (cmi_enb on the command thread)
 * create SIZE                            -> SEGMENT id
 * lookup ID                              -> SEGMENT id imported size (segFromId)
 * attach ID [READ]                       -> ATTACHED id             (mappings stack per segment)
 * detach ID                              -> DETACHED
 * remove ID                              -> REMOVED
 * export ID [WRITE_THROUGH]              -> HANDLE hex
 * rseg-del HANDLE                        -> OK
 * import HANDLE                          -> PROXY id imported
 * token ID NODE|ANY RIGHTS [OFF SIZE]    -> TOKEN hex               (RIGHTS: READ,WRITE,ATOMIC)
 * tok-del TOKEN                          -> OK
 * set-token ID TOKEN                     -> OK
 * get-long ID OFF                        -> VALUE v
 * put-long ID OFF V                      -> OK
 * fill ID OFF LEN SEED                   -> OK                      (one bulk put of the pattern)
 * check ID OFF LEN SEED                  -> VERIFIED | MISMATCH off (one bulk get)
 * cas-count ID OFF N BARRIER PARTIES     -> DONE n casFailures
 * mp-write ID                            -> DONE messages
 * mp-read ID TRIALS                      -> OUTCOMES trials observations forbidden lastFlag [first]
 * mixed HANDLE TOKEN CONTEXTS MILLIS     -> MIXED increments reads writes bad errors  (see {@link MixedLoad})
 * corr-write ID0 ID1 CTL READERS         -> DONE writes             (see {@link CacheOrdering})
 * corr-read ID0 ID1 CTL CACHED SLOT READS SEED -> CORR barrierReads plainReads changes malformed violations ownErrors
 * iriw-write X Y ROLE TRIALS             -> DONE trials
 * iriw-read X Y ROLE TRIALS              -> IRIW trials hexFirstNew hexSecondNew errors
 * mix SEED OPS ME ID0 ID1 ID2            -> MIX steps loads malformed violations finalErrors  (see {@link RandomMix})
 * exit                                   -> BYE
 * </pre>
 * and the event commands of {@link EventCommands} ({@code events-until}, {@code timed-get}, ...)
 * and the barrier commands of {@link BarrierCommands} ({@code wmb}, {@code flush-fb}, {@code cas}, ...).
 * Failures answer {@code ERROR CODE LASTERROR message}, {@code ACCESS_ERROR KIND SEGMENT OFFSET}
 * or {@code EXCEPTION class message}. The message-passing litmus words live at
 * {@link #MP_DATA}, {@link #MP_FLAG}, {@link #MP_STOP} and {@link #MP_BARRIER}.
 */
public final class RemoteWorkers {
    /** Prefix of protocol lines; anything else on stdout/stderr is log. */
    public static final String REPLY = Workers.REPLY;
    /** Litmus: the data word. */
    static final long MP_DATA = 0;
    /** Litmus: the flag word, in another cache line. */
    static final long MP_FLAG = 64;
    /** Litmus: set by the reader when it has seen enough; the writer stops. */
    static final long MP_STOP = 128;
    /** Litmus: the start barrier. */
    static final long MP_BARRIER = 192;
    /** A worker never lives longer than this. */
    private static final long MAX_LIFETIME_SECONDS = 300;
    /** No loop of a command runs longer than this; it answers with what it got so far. */
    private static final long COMMAND_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(90);
    private static final HexFormat HEX = HexFormat.of();

    private final PrintStream out;
    private final CmiContext ctx;
    private final Map<Long, Deque<CmiMapping>> mappings = new HashMap<>();
    private final BarrierCommands barriers;

    private RemoteWorkers(PrintStream out, CmiContext ctx) {
        this.out = out;
        this.ctx = ctx;
        this.barriers = new BarrierCommands(ctx, this::mapping);
    }

    /**
     * Entry point.
     *
     * @param args a name, for logs
     * @throws IOException if stdin fails
     */
    public static void main(String[] args) throws IOException {
        WorkerLoop.run(args, MAX_LIFETIME_SECONDS, (out, ctx) -> new RemoteWorkers(out, ctx)::execute);
    }

    private String execute(String[] a) {
        if (EventCommands.handles(a[0])) {
            return EventCommands.execute(ctx, a, this::mapping); // events, timed access, CMAP requests
        }
        if (BarrierCommands.handles(a[0])) {
            return barriers.execute(a); // one barrier call each
        }
        return switch (a[0]) {
            case "node" -> "NODE " + HEX.formatHex(ctx.nodeAddress().toBytes());
            case "enable" -> {
                ctx.enable(true);
                yield "OK";
            }
            case "disable" -> {
                ctx.enable(false);
                yield "OK";
            }
            case "create" -> "SEGMENT " + ctx.segGet(Long.parseLong(a[1]), Set.of()).id();
            case "lookup" -> {
                CmiSegment s = ctx.segFromId(Long.parseLong(a[1]));
                yield "SEGMENT " + s.id() + " " + s.imported() + " " + s.size();
            }
            case "attach" -> {
                CmiSegment s = ctx.segFromId(Long.parseLong(a[1]));
                Set<AttachFlag> flags = a.length > 2 && a[2].equals("READ") ? EnumSet.of(AttachFlag.READ) : Set.of();
                CmiMapping m = ctx.segAt(s, flags);
                mappings.computeIfAbsent(s.id(), k -> new ArrayDeque<>()).push(m);
                yield "ATTACHED " + s.id();
            }
            case "detach" -> {
                ctx.segDt(mapping(a[1]));
                mappings.get(Long.parseLong(a[1])).pop();
                yield "DETACHED";
            }
            case "remove" -> {
                ctx.segRemove(ctx.segFromId(Long.parseLong(a[1])));
                yield "REMOVED";
            }
            case "export" -> {
                Set<ExportAttr> attrs = a.length > 2 && a[2].equals("WRITE_THROUGH") ? EnumSet.of(ExportAttr.WRITE_THROUGH)
                    : Set.of();
                yield "HANDLE " + HEX.formatHex(ctx.segExp(ctx.segFromId(Long.parseLong(a[1])), attrs).toBytes());
            }
            case "rseg-del" -> {
                ctx.rsegDel(RemoteSegmentHandle.fromBytes(HEX.parseHex(a[1])));
                yield "OK";
            }
            case "import" -> {
                CmiSegment s = ctx.segImp(RemoteSegmentHandle.fromBytes(HEX.parseHex(a[1])));
                yield "PROXY " + s.id() + " " + s.imported();
            }
            case "token" -> {
                CmiSegment s = ctx.segFromId(Long.parseLong(a[1]));
                NodeAddress node = a[2].equals("ANY") ? NodeAddress.ANY : NodeAddress.fromBytes(HEX.parseHex(a[2]));
                Set<Access> rights = EnumSet.noneOf(Access.class);
                for (String r : a[3].split(",")) {
                    rights.add(Access.valueOf(r));
                }
                CmiToken t = a.length > 5
                    ? ctx.tokNewRange(s, Long.parseLong(a[4]), Long.parseLong(a[5]), node, rights)
                    : ctx.tokNew(s, node, rights);
                yield "TOKEN " + HEX.formatHex(t.toBytes());
            }
            case "tok-del" -> {
                ctx.tokDel(CmiToken.fromBytes(HEX.parseHex(a[1])));
                yield "OK";
            }
            case "set-token" -> {
                ctx.segSetToken(ctx.segFromId(Long.parseLong(a[1])), CmiToken.fromBytes(HEX.parseHex(a[2])));
                yield "OK";
            }
            // Commands that write end with a release (wmb) and commands that read start with an
            // acquire (rmb): the test's request/reply messages order them, as a flag would.
            case "inlet" -> // direct delivery into the attach (docs/notifications.md): its address
                "INLET " + java.util.HexFormat.of().formatHex(io.softcmi.cmi.notify.Notifications.openInlet(mapping(a[1])).address());
            case "get-long" -> {
                ctx.rmb();
                yield "VALUE " + mapping(a[1]).getLong(Long.parseLong(a[2]));
            }
            case "put-long" -> {
                mapping(a[1]).putLong(Long.parseLong(a[2]), Long.parseLong(a[3]));
                ctx.wmb();
                yield "OK";
            }
            case "put-long-nobarrier" -> {
                mapping(a[1]).putLong(Long.parseLong(a[2]), Long.parseLong(a[3]));
                yield "OK";
            }
            case "get-long-nobarrier" -> "VALUE " + mapping(a[1]).getLong(Long.parseLong(a[2]));
            case "fill" -> {
                long off = Long.parseLong(a[2]);
                byte[] b = patternBytes(Long.parseLong(a[4]), off, Integer.parseInt(a[3]));
                mapping(a[1]).put(off, b, 0, b.length);
                ctx.wmb();
                yield "OK";
            }
            case "chaos" -> ChaosLoad.run(ctx, a[1], a[2], Integer.parseInt(a[3]), Long.parseLong(a[4]));
            case "put-loop" -> putLoop(mapping(a[1]), Integer.parseInt(a[2]));
            case "check" -> {
                ctx.rmb();
                long off = Long.parseLong(a[2]);
                long seed = Long.parseLong(a[4]);
                byte[] b = new byte[Integer.parseInt(a[3])];
                mapping(a[1]).get(off, b, 0, b.length);
                for (int i = 0; i < b.length; i++) {
                    if (b[i] != pattern(seed, off + i)) {
                        yield "MISMATCH " + (off + i);
                    }
                }
                yield "VERIFIED";
            }
            case "cas-count" -> casCount(mapping(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]),
                Long.parseLong(a[5]));
            case "cache-size" -> {
                ctx.ctlCacheRsegSet(ctx.segFromId(Long.parseLong(a[1])), Long.parseLong(a[2]));
                yield "OK " + ctx.ctlCacheRsegGet(ctx.segFromId(Long.parseLong(a[1])));
            }
            case "sb" -> CacheLitmus.storeBuffering(ctx, mapping(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
            case "fs" -> CacheLitmus.falseSharing(ctx, mapping(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                Integer.parseInt(a[4]));
            case "check-bytes" -> CacheLitmus.checkBytes(ctx, mapping(a[1]), Integer.parseInt(a[2]), Byte.parseByte(a[3]));
            case "evict" -> CacheLitmus.evict(ctx, mapping(a[1]), Long.parseLong(a[2]), Integer.parseInt(a[3]));
            case "evict-check" -> CacheLitmus.evictCheck(ctx, mapping(a[1]), Long.parseLong(a[2]), Integer.parseInt(a[3]));
            case "epoch-flush" -> CacheLitmus.epochFlush(ctx, mapping(a[1]), Long.parseLong(a[2]));
            case "cflush" -> CacheLitmus.cflush(ctx, mapping(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]));
            case "cas-stores" -> CacheLitmus.casNextToStores(ctx, mapping(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]),
                Long.parseLong(a[4]), Long.parseLong(a[5]));
            case "corr-write" -> CacheOrdering.corrWrite(ctx, mappings(a[1], a[2], a[3]), Integer.parseInt(a[4]));
            case "corr-read" -> CacheOrdering.corrRead(ctx, mappings(a[1], a[2], a[3]), Integer.parseInt(a[4]),
                Integer.parseInt(a[5]), Integer.parseInt(a[6]), Long.parseLong(a[7]));
            case "iriw-write" -> CacheOrdering.iriwWrite(ctx, mapping(a[1]), mapping(a[2]), Integer.parseInt(a[3]),
                Integer.parseInt(a[4]));
            case "iriw-read" -> CacheOrdering.iriwRead(ctx, mapping(a[1]), mapping(a[2]), Integer.parseInt(a[3]),
                Integer.parseInt(a[4]));
            case "mix" -> RandomMix.run(ctx, mappings(a[4], a[5], a[6]), Integer.parseInt(a[3]), Long.parseLong(a[1]),
                Integer.parseInt(a[2]));
            case "mp-write" -> messagePassingWriter(mapping(a[1]));
            case "mp-read" -> messagePassingReader(mapping(a[1]), Long.parseLong(a[2]));
            case "mixed" -> MixedLoad.run(HEX.parseHex(a[1]), HEX.parseHex(a[2]), Integer.parseInt(a[3]), Long.parseLong(a[4]));
            case "exit" -> {
                ctx.close();
                yield "BYE";
            }
            default -> "EXCEPTION unknown command " + a[0];
        };
    }

    private CmiMapping mapping(String id) {
        Deque<CmiMapping> d = mappings.get(Long.parseLong(id));
        if (d == null || d.isEmpty()) {
            throw new IllegalStateException("segment " + id + " is not attached by this worker");
        }
        return d.peek();
    }

    private CmiMapping[] mappings(String... ids) {
        CmiMapping[] m = new CmiMapping[ids.length];
        for (int i = 0; i < ids.length; i++) {
            m[i] = mapping(ids[i]);
        }
        return m;
    }

    /** Arrives at the barrier word and waits until {@code parties} arrived; false on timeout. */
    private boolean barrier(CmiMapping m, long barrier, long parties, long deadline) {
        long seen = 0;
        long was;
        while ((was = ctx.atmCas(m, barrier, seen, seen + 1)) != seen) {
            seen = was;
        }
        while (m.getLong(barrier) < parties) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            ctx.rmb();
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * Adds {@code n} to the word at {@code off}, one {@code atm_cas} at a time, after all parties
     * met at the barrier (so that they really contend). A failed CAS returns the current value,
     * which is the next compare value: each failure means another party's increment succeeded.
     */
    private String casCount(CmiMapping m, long off, long n, long barrier, long parties) {
        long deadline = System.nanoTime() + COMMAND_LIMIT_NANOS;
        if (!barrier(m, barrier, parties, deadline)) {
            return "EXCEPTION barrier timeout: " + m.getLong(barrier) + " of " + parties + " arrived";
        }
        long failures = 0;
        long expected = m.getLong(off);
        for (long i = 0; i < n; i++) {
            while (true) {
                long was = ctx.atmCas(m, off, expected, expected + 1);
                if (was == expected) {
                    expected++;
                    break;
                }
                expected = was;
                failures++;
            }
            if ((i & 0xFF) == 0 && System.nanoTime() - deadline > 0) {
                return "EXCEPTION only " + i + " of " + n + " increments done in time";
            }
        }
        return "DONE " + n + " " + failures;
    }

    /**
     * The writer of the message-passing litmus test: message {@code i = 1, 2, ...} is
     * {@code data = i; wmb; flag = i}, until the reader sets the stop word (or time is up).
     */
    private String messagePassingWriter(CmiMapping m) {
        long deadline = System.nanoTime() + COMMAND_LIMIT_NANOS;
        if (!barrier(m, MP_BARRIER, 2, deadline)) {
            return "EXCEPTION barrier timeout";
        }
        for (long i = 1; ; i++) {
            if ((i & 15) == 0) {
                if (m.getLong(MP_STOP) != 0) {
                    return "DONE " + (i - 1);
                }
                if (System.nanoTime() - deadline > 0) {
                    return "TIMEOUT " + (i - 1);
                }
            }
            if ((i & 255) == 0) {
                // A writer on its own mapping would otherwise hog a core that the reader and the
                // home's data session need (the machine may have two); a sleep gives it up for a bit.
                LockSupport.parkNanos(1);
            }
            m.putLong(MP_DATA, i);
            ctx.wmb();
            m.putLong(MP_FLAG, i);
        }
    }

    /**
     * The reader of the message-passing litmus test: {@code f = flag; rmb; d = data}, over and
     * over; {@code d < f} is forbidden. A trial is an observation of a flag value not seen
     * before; after {@code trials} of them it sets the stop word.
     *
     * @return {@code OUTCOMES trials observations forbidden lastFlag [first forbidden]}
     */
    private String messagePassingReader(CmiMapping m, long trials) {
        long deadline = System.nanoTime() + COMMAND_LIMIT_NANOS;
        if (!barrier(m, MP_BARRIER, 2, deadline)) {
            return "EXCEPTION barrier timeout";
        }
        long seen = 0;
        long observations = 0;
        long forbidden = 0;
        long last = 0;
        int unchanged = 0;
        String first = "";
        try {
            while (seen < trials) {
                long f = m.getLong(MP_FLAG);
                ctx.rmb();
                long d = m.getLong(MP_DATA);
                observations++;
                if (d < f) {
                    forbidden++;
                    if (first.isEmpty()) {
                        first = "flag=" + f + ",data=" + d;
                    }
                }
                if (f < last) {
                    return "EXCEPTION the flag went back from " + last + " to " + f;
                }
                if (f != last) {
                    seen++;
                    last = f;
                    unchanged = 0;
                } else if (++unchanged % 64 == 0) {
                    if (System.nanoTime() - deadline > 0) {
                        return "TIMEOUT " + seen + " " + observations + " " + forbidden + " " + last;
                    }
                    LockSupport.parkNanos(1); // a reader on its own mapping would otherwise starve the writer
                }
            }
        } finally {
            m.putLong(MP_STOP, 1);
        }
        return "OUTCOMES " + seen + " " + observations + " " + forbidden + " " + last + (first.isEmpty() ? "" : " " + first);
    }

    /**
     * Starts a thread of this context that stores {@code length} bytes at offset 0 again and again
     * (a bulk store split into chunks, always in flight) until the process dies; answers once the
     * first store completed.
     */
    private String putLoop(CmiMapping m, int length) {
        java.util.concurrent.CountDownLatch first = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            ctx.iniTh();
            ctx.enable(true);
            byte[] b = new byte[length];
            for (long round = 1; ; round++) {
                java.util.Arrays.fill(b, (byte) round);
                try {
                    m.put(0, b, 0, b.length);
                } catch (RuntimeException e) {
                    return;
                }
                first.countDown();
            }
        }, "put-loop");
        t.setDaemon(true);
        t.start();
        try {
            return first.await(60, java.util.concurrent.TimeUnit.SECONDS) ? "LOOPING" : "ERROR first store did not complete";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "ERROR interrupted";
        }
    }

    /**
     * @param seed distinguishes patterns
     * @param offset first byte's offset in the segment
     * @param length how many bytes
     * @return the pattern bytes for {@code [offset, offset + length)}
     */
    static byte[] patternBytes(long seed, long offset, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = pattern(seed, offset + i);
        }
        return b;
    }

    /**
     * The test pattern: the byte at {@code offset} for {@code seed}.
     *
     * @param seed distinguishes patterns
     * @param offset byte offset in the segment
     * @return the byte that belongs there
     */
    static byte pattern(long seed, long offset) {
        long x = (offset + 1) * 0x9E3779B97F4A7C15L ^ (seed + 1) * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x ^ x >>> 29 ^ x >>> 47);
    }
}
