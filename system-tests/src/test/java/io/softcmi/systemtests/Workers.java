package io.softcmi.systemtests;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.Reservation;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegStatus;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The main class of CMI client processes in system tests: a tiny command interpreter. It joins the
 * node named by {@code SOFTCMI_NODE}, replies {@code READY pid}, then reads one command per line
 * from stdin and answers each with exactly one line starting with {@value #REPLY}. It exits on
 * {@code exit} (closing its context first) or when stdin ends (its test is gone), and in any case
 * after {@link #MAX_LIFETIME_SECONDS}, so that no worker outlives its test.
 *
 * <pre>
 * info                                    -> INFO maxMemAvail protUnits
 * create SIZE [FLAG,FLAG...]              -> SEGMENT id
 * attach ID [READ]                        -> ATTACHED id          (mappings stack per segment)
 * detach ID                               -> DETACHED             (the latest attach of ID)
 * remove ID                               -> REMOVED
 * status ID                               -> STATUS state attachCount brk creatorPid
 * break ID BYTES                          -> OK
 * write ID SEED OFFSET LENGTH             -> WROTE                (pattern, see {@link #pattern})
 * verify ID SEED OFFSET LENGTH            -> VERIFIED | MISMATCH offset
 * zero ID OFFSET LENGTH                   -> VERIFIED | MISMATCH offset   (all bytes 0)
 * get-long ID OFFSET                      -> VALUE v
 * put-long ID OFFSET VALUE                -> OK
 * cas-increment ID OFFSET N BARRIER PARTIES -> DONE n retries
 * reserve BYTES                           -> RESERVATION key reserved allocated
 * reserve-set KEY                         -> OK
 * reserve-del                             -> OK
 * exit                                    -> BYE
 * </pre>
 * Failures answer {@code ERROR CODE LASTERROR} (a {@link CmiException}: its code and
 * {@link Cmi#lastError()}), {@code ACCESS_ERROR KIND SEGMENT OFFSET} (a {@link CmiAccessException})
 * or {@code EXCEPTION class message}.
 */
public final class Workers {
    /** Prefix of protocol lines; anything else on stdout/stderr is log. */
    public static final String REPLY = "=> ";
    /** A worker never lives longer than this. */
    static final long MAX_LIFETIME_SECONDS = 600;
    private static final long SPIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final PrintStream out;
    private final CmiContext ctx;
    private final Map<Long, Deque<CmiMapping>> mappings = new HashMap<>();

    private Workers(PrintStream out, CmiContext ctx) {
        this.out = out;
        this.ctx = ctx;
    }

    /**
     * Entry point.
     *
     * @param args a name, for logs
     * @throws IOException if stdin fails
     */
    public static void main(String[] args) throws IOException {
        WorkerLoop.run(args, MAX_LIFETIME_SECONDS, (out, ctx) -> new Workers(out, ctx)::execute);
    }

    private String execute(String[] a) {
        return switch (a[0]) {
            case "info" -> {
                CmiInfo i = ctx.ctlInfo();
                yield "INFO " + i.maxMemAvail() + " " + i.protUnits();
            }
            case "create" -> {
                Set<SegFlag> flags = EnumSet.noneOf(SegFlag.class);
                if (a.length > 2) {
                    for (String f : a[2].split(",")) {
                        flags.add(SegFlag.valueOf(f));
                    }
                }
                yield "SEGMENT " + ctx.segGet(Long.parseLong(a[1]), flags).id();
            }
            case "attach" -> {
                CmiSegment s = ctx.segFromId(Long.parseLong(a[1]));
                Set<AttachFlag> flags = a.length > 2 && a[2].equals("READ") ? EnumSet.of(AttachFlag.READ)
                    : EnumSet.noneOf(AttachFlag.class);
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
            case "status" -> {
                SegStatus s = ctx.segStatus(ctx.segFromId(Long.parseLong(a[1])));
                yield "STATUS " + s.state() + " " + s.attachCount() + " " + s.segBrk() + " " + s.creatorPid();
            }
            case "break" -> {
                ctx.segBreak(ctx.segFromId(Long.parseLong(a[1])), Long.parseLong(a[2]));
                yield "OK";
            }
            case "write" -> {
                CmiMapping m = mapping(a[1]);
                long seed = Long.parseLong(a[2]);
                long off = Long.parseLong(a[3]);
                long len = Long.parseLong(a[4]);
                for (long i = off; i < off + len; i++) {
                    m.putByte(i, pattern(seed, i));
                }
                yield "WROTE";
            }
            case "verify" -> verify(mapping(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]), false);
            case "zero" -> verify(mapping(a[1]), 0, Long.parseLong(a[2]), Long.parseLong(a[3]), true);
            case "get-long" -> "VALUE " + mapping(a[1]).getLong(Long.parseLong(a[2]));
            case "put-long" -> {
                mapping(a[1]).putLong(Long.parseLong(a[2]), Long.parseLong(a[3]));
                yield "OK";
            }
            case "cas-increment" -> casIncrement(mapping(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]),
                Long.parseLong(a[4]), Long.parseLong(a[5]));
            case "reserve" -> {
                Reservation r = ctx.ctlMemReserve(Long.parseLong(a[1]));
                yield "RESERVATION " + r.rsvKey() + " " + r.memReserved() + " " + r.memAllocd();
            }
            case "reserve-set" -> {
                ctx.ctlMemReserveSet(Long.parseLong(a[1]));
                yield "OK";
            }
            case "reserve-del" -> {
                ctx.ctlMemReserveDel();
                yield "OK";
            }
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

    private static String verify(CmiMapping m, long seed, long off, long len, boolean zero) {
        for (long i = off; i < off + len; i++) {
            byte expected = zero ? 0 : pattern(seed, i);
            if (m.getByte(i) != expected) {
                return "MISMATCH " + i;
            }
        }
        return "VERIFIED";
    }

    /**
     * Adds {@code n} to the word at {@code off} with {@code atm_cas}, one at a time, after all
     * {@code parties} workers arrived at the barrier word (so that they really contend).
     */
    private String casIncrement(CmiMapping m, long off, long n, long barrier, long parties) {
        long arrived;
        do {
            arrived = m.getLong(barrier);
        } while (ctx.atmCas(m, barrier, arrived, arrived + 1) != arrived);
        long spinUntil = System.nanoTime() + SPIN_LIMIT_NANOS;
        while (m.getLong(barrier) < parties) {
            if (System.nanoTime() - spinUntil > 0) {
                return "EXCEPTION barrier timeout: " + m.getLong(barrier) + " of " + parties + " arrived";
            }
            Thread.onSpinWait();
        }
        long retries = 0;
        long maxRetries = n * parties; // each retry means another worker's increment succeeded
        long giveUp = System.nanoTime() + SPIN_LIMIT_NANOS;
        for (long i = 0; i < n; i++) {
            while (true) {
                long v = m.getLong(off);
                if (ctx.atmCas(m, off, v, v + 1) == v) {
                    break;
                }
                if (++retries > maxRetries) {
                    return "EXCEPTION more CAS failures (" + retries + ") than other workers' increments";
                }
            }
            if ((i & 0xFFFF) == 0 && System.nanoTime() - giveUp > 0) {
                return "EXCEPTION only " + i + " of " + n + " increments done in time";
            }
        }
        return "DONE " + n + " " + retries;
    }

    /**
     * The test pattern: the byte at {@code offset} for {@code seed}.
     *
     * @param seed distinguishes patterns
     * @param offset byte offset in the segment
     * @return the byte that belongs there
     */
    static byte pattern(long seed, long offset) {
        long x = (offset + 1) * 0x9E3779B97F4A7C15L ^ seed * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x ^ x >>> 29 ^ x >>> 47);
    }
}
