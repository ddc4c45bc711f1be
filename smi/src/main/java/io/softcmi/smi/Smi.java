package io.softcmi.smi;

import io.softcmi.smi.internal.Copier;
import io.softcmi.smi.internal.Counters;
import io.softcmi.smi.internal.Debug;
import io.softcmi.smi.internal.Errors;
import io.softcmi.smi.internal.Job;
import io.softcmi.smi.internal.JobEnv;
import io.softcmi.smi.internal.Loops;
import io.softcmi.smi.internal.Messages;
import io.softcmi.smi.internal.Mutexes;
import io.softcmi.smi.internal.Regions;
import io.softcmi.smi.internal.Replication;
import io.softcmi.smi.internal.Signals;
import io.softcmi.smi.internal.SysInfo;
import io.softcmi.smi.internal.Watchdog;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.FileInputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Set;

/**
 * An SMI process: the Java binding of the Shared Memory Interface (SMI 2.7 manual), one method per
 * {@code SMI_*} function, built on the public CMI API. Every region is made of CMI segments homed
 * on their owners' nodes. Failures throw {@link SmiException} with the manual's return value.
 * <p>One instance per process, made by {@link #init(String[])} (the process is started by
 * {@code smirun}, or alone as a job of one process); its methods are called from the thread that
 * called {@code init}.
 */
public final class Smi implements AutoCloseable {
    /** {@code SMI_SIGNAL_ANY}: accept a signal from any process. */
    public static final int SIGNAL_ANY = Signals.ANY;
    /** {@code SMI_SIGNAL_BCAST}: signal every other process. */
    public static final int SIGNAL_BCAST = Signals.BCAST;
    /** {@code SMI_WATCHDOG_DISABLE}. */
    public static final int WATCHDOG_DISABLE = Watchdog.DISABLE;
    /** {@code SMI_WATCHDOG_OFF}. */
    public static final int WATCHDOG_OFF = Watchdog.OFF;
    /** {@code SMI_MP_MAXDATA}: the largest small message. */
    public static final int MP_MAXDATA = Messages.MAXDATA;

    private static final Object INIT_LOCK = new Object();
    private static Smi current;

    private final Job job;
    private final Debug debug;
    private final Regions regions;
    private final Mutexes mutexes;
    private final Counters counters;
    private final Signals signals;
    private final Messages messages;
    private final Copier copier;
    private final Loops loops;
    private final Replication replication;
    private final Watchdog watchdog;
    private final long page;
    private final long startNanos = System.nanoTime();
    private long lastTimerNanos = startNanos;
    private boolean closed;

    private Smi(Job job, Debug debug) {
        this.job = job;
        this.debug = debug;
        this.page = SysInfo.pageSize(job.context().ctlInfo().protUnits());
        this.regions = new Regions(job, page);
        this.mutexes = new Mutexes(job);
        job.mutexes(mutexes);
        this.counters = new Counters(job);
        this.signals = new Signals(job);
        this.messages = new Messages(job);
        this.copier = new Copier(job);
        this.loops = new Loops(job);
        this.replication = new Replication(job, loops);
        this.watchdog = new Watchdog(job, job.env().watchdogSeconds());
    }

    /**
     * Implements {@code SMI_Init} (collective): joins the job {@code smirun} started (or makes a
     * job of this one process), attaches every process's control segment and meets them all.
     *
     * @param args the program's arguments ({@code smirun} passes none of its own)
     * @return this process's SMI instance
     * @throws SmiException {@link SmiError#OTHER} if already initialized in this process;
     *         {@link SmiError#NODEVICE} if no CMI node can be joined; {@link SmiError#PARAM} if the
     *         job environment is inconsistent
     */
    public static Smi init(String[] args) {
        synchronized (INIT_LOCK) {
            if (current != null) {
                throw Errors.fail(SmiError.OTHER, "SMI_Init was already called in this process");
            }
            JobEnv env = JobEnv.from(System.getenv(), SysInfo.hostName());
            Debug debug = new Debug(env.debug());
            debug.rank(env.rank());
            Job job = Job.start(env, debug);
            current = new Smi(job, debug);
            debug.log("SMI_Init done: rank " + env.rank() + " of " + env.size() + " on node " + env.procNode()[env.rank()]);
            return current;
        }
    }

    private void live() {
        if (closed) {
            throw Errors.fail(SmiError.NOINIT, "SMI_Finalize was called");
        }
    }

    /**
     * Implements {@code SMI_Finalize} (collective): a last barrier, then every region, mutex and
     * segment of this process goes. Later calls fail with {@link SmiError#NOINIT}. Because it
     * waits for every process, a process whose work failed should call {@link #abort(int)}
     * instead (a try-with-resources around a failing body would wait here for the others).
     */
    @Override
    public void close() {
        synchronized (INIT_LOCK) {
            if (closed) {
                return;
            }
            job.barrier();
            regions.freeAll();
            copier.close();
            watchdog.stop();
            job.finish();
            closed = true;
            current = null;
        }
    }

    /**
     * Not an SMI function: one raw CMI {@code atm_cas} round trip to another process's control
     * segment, the baseline the synchronization benchmarks compare with.
     *
     * @param rank the target process
     */
    public void rawAtmCas(int rank) {
        live();
        job.rawAtmCasRoundTrip(Errors.checkRank(rank, procSize(), "rank"));
    }

    /**
     * Implements {@code SMI_Abort}: ends the whole application; never returns.
     *
     * @param code the exit code of the processes
     */
    public void abort(int code) {
        job.abort(code);
    }

    /**
     * Implements {@code SMI_Redirect_IO}: redirects this JVM's {@code System.err}, {@code System.out}
     * and {@code System.in} to files; output file names get the suffix {@code .RANK}.
     *
     * @param err mode for stderr
     * @param errParam its file
     * @param out mode for stdout
     * @param outParam its file
     * @param in mode for stdin
     * @param inParam its file
     * @throws SmiException {@link SmiError#PARAM} if a mode is null or a file cannot be opened;
     *         {@link SmiError#NOINIT} after finalize
     */
    public void redirectIo(IoMode err, String errParam, IoMode out, String outParam, IoMode in, String inParam) {
        live();
        if (err == null || out == null || in == null) {
            throw Errors.fail(SmiError.PARAM, "modes must not be null");
        }
        try {
            if (err == IoMode.FILE) {
                System.setErr(new PrintStream(new FileOutputStream(errParam + "." + procRank()), true));
            }
            if (out == IoMode.FILE) {
                System.setOut(new PrintStream(new FileOutputStream(outParam + "." + procRank()), true));
            }
            if (in == IoMode.FILE) {
                System.setIn(new FileInputStream(inParam));
            }
        } catch (FileNotFoundException | NullPointerException e) {
            throw Errors.fail(SmiError.PARAM, "cannot redirect: " + e.getMessage());
        }
    }

    /**
     * Implements {@code SMI_Watchdog}.
     *
     * @param timeoutSeconds seconds, {@link #WATCHDOG_DISABLE} or {@link #WATCHDOG_OFF}
     * @throws SmiException {@link SmiError#PARAM} if the value is illegal
     */
    public void watchdog(int timeoutSeconds) {
        live();
        watchdog.timeout(timeoutSeconds);
    }

    /**
     * Implements {@code SMI_Watchdog_callback}: {@code onAbnormalEnd} runs in this process when the
     * application ends abnormally (a dead process, {@code SMI_Abort}).
     *
     * @param onAbnormalEnd the callback
     * @throws SmiException {@link SmiError#PARAM} if null
     */
    public void watchdogCallback(Runnable onAbnormalEnd) {
        live();
        if (onAbnormalEnd == null) {
            throw Errors.fail(SmiError.PARAM, "callback must not be null");
        }
        job.abnormalEnd(onAbnormalEnd);
    }

    /**
     * Implements {@code SMI_Debug}: debug lines on standard error.
     *
     * @param on whether to print them
     */
    public void debug(boolean on) {
        debug.on(on);
    }

    /** @return {@code SMI_Proc_rank} */
    public int procRank() {
        live();
        return job.rank();
    }

    /** @return {@code SMI_Node_rank} */
    public int nodeRank() {
        live();
        return job.env().procNode()[job.rank()];
    }

    /** @return {@code SMI_Local_proc_rank}: the rank among this node's processes */
    public int localProcRank() {
        return procRank() - firstProcOnNode(nodeRank());
    }

    /**
     * Implements {@code SMI_Proc_to_node}.
     *
     * @param rank a process
     * @return its node's rank
     * @throws SmiException {@link SmiError#PARAM} if no such process
     */
    public int procToNode(int rank) {
        live();
        return job.env().procNode()[Errors.checkRank(rank, procSize(), "proc_rank")];
    }

    /** @return {@code SMI_Proc_size} */
    public int procSize() {
        live();
        return job.size();
    }

    /** @return {@code SMI_Local_proc_size}: processes on this node */
    public int localProcSize() {
        return procsOn(nodeRank());
    }

    /** @return {@code SMI_Max_local_proc_size} */
    public int maxLocalProcSize() {
        int max = 0;
        for (int n = 0; n < nodeSize(); n++) {
            max = Math.max(max, procsOn(n));
        }
        return max;
    }

    private int procsOn(int node) {
        live();
        int c = 0;
        for (int p : job.env().procNode()) {
            if (p == node) {
                c++;
            }
        }
        return c;
    }

    /** @return {@code SMI_Node_size} */
    public int nodeSize() {
        live();
        return job.env().nodeSize();
    }

    /**
     * Implements {@code SMI_First_proc_on_node}.
     *
     * @param node a node rank
     * @return the lowest process rank on it
     * @throws SmiException {@link SmiError#PARAM} if no such node
     */
    public int firstProcOnNode(int node) {
        live();
        int[] pn = job.env().procNode();
        for (int r = 0; r < pn.length; r++) {
            if (pn[r] == node) {
                return r;
            }
        }
        throw Errors.fail(SmiError.PARAM, "no node " + node);
    }

    /** @return {@code SMI_Get_node_name}: the name smirun gave this node (its host, or its pseudo-host) */
    public String nodeName() {
        live();
        return job.env().nodeNames().get(nodeRank());
    }

    /** @return {@code SMI_Get_timer}: the current system time (since the epoch) */
    public Duration timer() {
        lastTimerNanos = System.nanoTime();
        java.time.Instant now = java.time.Instant.now();
        return Duration.ofSeconds(now.getEpochSecond(), now.getNano() / 1000 * 1000L);
    }

    /** @return {@code SMI_Get_timespan}: time since the last {@code timer}/{@code timespan} call or since init */
    public Duration timespan() {
        long now = System.nanoTime();
        Duration d = Duration.ofNanos((now - lastTimerNanos) / 1000 * 1000);
        lastTimerNanos = now;
        return d;
    }

    /** @return {@code SMI_Get_ticks}: a high-resolution counter, in nanoseconds ({@code System.nanoTime}) */
    public long ticks() {
        return System.nanoTime();
    }

    /** @return {@code SMI_Wtime}: wall-clock seconds since an arbitrary point */
    public double wtime() {
        return System.nanoTime() / 1e9;
    }

    /** @return {@code SMI_Page_size}: the granularity regions are rounded to */
    public int pageSize() {
        live();
        return (int) page;
    }

    /**
     * Implements {@code SMI_Query} for integer-valued queries (see {@link SmiQuery} for what each
     * answers on TCP).
     *
     * @param q the query
     * @param arg its argument (adapter, rank or region id; ignored where none)
     * @return the result
     * @throws SmiException {@link SmiError#PARAM} for a bad argument or a string-valued query;
     *         {@link SmiError#NOINIT} after finalize (except {@code SMI_INITIALIZED})
     */
    public long query(SmiQuery q, int arg) {
        if (q == SmiQuery.SMI_INITIALIZED) {
            return closed ? 0 : 1;
        }
        live();
        return switch (q) {
            case SCI_STREAMBUFSIZE, SCI_NBRSTREAMBUFS, SCI_ADAPTERTYPE, SCI_DEFADAPTER, SCI_NEXTADAPTER -> 0;
            case SCI_PACKETSIZE -> 8;
            case SCI_NBRADAPTERS -> 1;
            case SCI_ID -> nodeRank();
            case SCI_PROC_ID -> procToNode(arg);
            case SCI_CONNECTION_STATE -> job.bootstrapReachable() ? SmiError.SUCCESS.code() : SmiError.PENDING.code();
            case SMI_REGION_CONNECTED -> regions.connected(arg) ? 1 : 0;
            case SMI_REGION_SGMT_ID -> regions.byId(arg).sgmtId();
            case SMI_REGION_ADPT -> regions.allLocal(arg) ? -1 : 0;
            case SYS_NBRCPUS -> Runtime.getRuntime().availableProcessors();
            case SYS_CPUFREQ -> SysInfo.cpuMhz();
            case SYS_PAGESIZE -> page;
            case SCI_API_VERSION -> throw Errors.fail(SmiError.PARAM, "SCI_API_VERSION is string-valued: use queryString");
            case SMI_INITIALIZED -> 1;
        };
    }

    /**
     * Implements {@code SMI_Query(SMI_Q_SCI_API_VERSION)}.
     *
     * @param q {@link SmiQuery#SCI_API_VERSION}
     * @return the transport's version string
     * @throws SmiException {@link SmiError#PARAM} for another query
     */
    public String queryString(SmiQuery q) {
        live();
        if (q != SmiQuery.SCI_API_VERSION) {
            throw Errors.fail(SmiError.PARAM, q + " is not string-valued");
        }
        return "softcmi CMI " + job.context().version() + " over TCP (no SISCI)";
    }

    /**
     * Implements {@code SMI_Create_shreg}: collective for {@code UNDIVIDED}, {@code BLOCKED},
     * {@code CYCLIC}, {@code CUSTOMIZED}, {@code SMP}, {@code FRAGMENTED}; between owner and
     * partner for {@code PT2PT}; local for {@code LOCAL}, {@code REMOTE}, {@code RDMA}.
     *
     * @param type the distribution policy
     * @param desc the description
     * @param flags creation flags
     * @return the region
     * @throws SmiException {@link SmiError#PARAM} for bad parameters or flags;
     *         {@link SmiError#NOMEM} if a segment is too large; {@link SmiError#NOSEGMENT} if no
     *         more segments can be exported; {@link SmiError#NOTIMPL} for {@code REGISTER}
     */
    public SmiRegion createShreg(RegionType type, RegionInfo desc, Set<RegionFlag> flags) {
        live();
        return regions.create(type, desc, flags);
    }

    /**
     * Implements {@code SMI_Init_reginfo}.
     *
     * @param size the size in bytes
     * @param owner the owner's rank
     * @return a description with the other fields 0
     * @throws SmiException {@link SmiError#PARAM} if size or owner is negative
     */
    public static RegionInfo initReginfo(long size, int owner) {
        if (size < 0 || owner < 0) {
            throw Errors.fail(SmiError.PARAM, "size and owner must not be negative");
        }
        return new RegionInfo(size, owner);
    }

    /**
     * Implements {@code SMI_Adr_to_region}.
     *
     * @param a an address
     * @return its region
     * @throws SmiException {@link SmiError#PARAM} if it is in no live region of this process
     */
    public SmiRegion adrToRegion(SmiAddress a) {
        live();
        return regions.adrToRegion(a);
    }

    /**
     * Implements {@code SMI_Barrier}: each process counts itself in with one {@code atm_cas} at
     * the bootstrap segment's home; the last one wakes the others through their control segments.
     */
    public void barrier() {
        live();
        job.barrier();
    }

    /** @return {@code SMI_Mutex_init} (collective): a mutex whose queue tail is spread over the processes */
    public SmiMutex mutexInit() {
        live();
        return mutexes.create(-1);
    }

    /**
     * Implements {@code SMI_Mutex_init_with_locality} (collective).
     *
     * @param rank the process whose node holds the mutex
     * @return the mutex
     */
    public SmiMutex mutexInitWithLocality(int rank) {
        live();
        return mutexes.create(rank);
    }

    /** @return {@code SMI_Init_PC} (collective): a new progress counter, 0 everywhere */
    public ProgressCounter initPc() {
        live();
        return counters.create();
    }

    /**
     * Implements {@code SMI_Signal_wait}.
     *
     * @param rank the sender, or {@link #SIGNAL_ANY}
     */
    public void signalWait(int rank) {
        live();
        signals.await(rank);
    }

    /**
     * Implements {@code SMI_Signal_send}.
     *
     * @param rank the receiver, or {@link #SIGNAL_BCAST}
     */
    public void signalSend(int rank) {
        live();
        signals.send(rank);
    }

    /**
     * Implements {@code SMI_Signal_setCallBack}.
     *
     * @param rank the sender, or {@link #SIGNAL_ANY}
     * @param callback run (on a thread of its own) when the signal arrives
     * @return the handle to join
     */
    public SignalHandle signalSetCallback(int rank, Runnable callback) {
        live();
        return signals.callback(rank, callback);
    }

    /**
     * Implements {@code SMI_Signal_joinCallBack}.
     *
     * @param h the handle
     */
    public void signalJoinCallback(SignalHandle h) {
        live();
        signals.join(h);
    }

    /**
     * Implements {@code SMI_Send} (synchronous: returns once {@code dest} read it).
     *
     * @param buf data
     * @param count bytes, at most {@link #MP_MAXDATA}
     * @param dest receiver
     */
    public void send(byte[] buf, int count, int dest) {
        live();
        messages.send(buf, count, dest);
    }

    /**
     * Implements {@code SMI_Isend}.
     *
     * @param buf data
     * @param count bytes, at most {@link #MP_MAXDATA}
     * @param dest receiver
     * @throws SmiException {@link SmiError#PENDING} if the previous message to {@code dest} is unread
     */
    public void isend(byte[] buf, int count, int dest) {
        live();
        messages.isend(buf, count, dest);
    }

    /**
     * Implements {@code SMI_Send_wait}.
     *
     * @param dest receiver
     */
    public void sendWait(int dest) {
        live();
        messages.sendWait(dest);
    }

    /**
     * Implements {@code SMI_Recv}.
     *
     * @param buf where the data goes
     * @param count bytes
     * @param src sender
     */
    public void recv(byte[] buf, int count, int src) {
        live();
        messages.recv(buf, count, src);
    }

    /**
     * Implements {@code SMI_Sendrecv}.
     *
     * @param s data to send
     * @param r where the received data goes
     * @param count bytes each way
     * @param peer the other process
     */
    public void sendrecv(byte[] s, byte[] r, int count, int peer) {
        live();
        messages.sendrecv(s, r, count, peer);
    }

    /**
     * Implements {@code SMI_Memcpy} between region addresses.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags {@code NOBARRIER}, {@code FAST}, ...
     */
    public void memcpy(SmiAddress dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        live();
        copier.copy(new Copier.RegionEnd(dst), new Copier.RegionEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Memcpy} from private memory into a region.
     *
     * @param dst destination
     * @param src source ({@code size} bytes from its start)
     * @param size bytes
     * @param flags flags
     */
    public void memcpy(SmiAddress dst, MemorySegment src, long size, Set<MemcpyFlag> flags) {
        live();
        copier.copy(new Copier.RegionEnd(dst), new Copier.MemoryEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Memcpy} from a region into private memory.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags
     */
    public void memcpy(MemorySegment dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        live();
        copier.copy(new Copier.MemoryEnd(dst), new Copier.RegionEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Imemcpy} between region addresses: runs on the copy thread.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags; {@code ENQUEUE} holds it until the next posting or wait
     * @return the handle
     */
    public MemcpyHandle imemcpy(SmiAddress dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        live();
        return copier.post(new Copier.RegionEnd(dst), new Copier.RegionEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Imemcpy} from private memory into a region. The copy thread reads
     * {@code src}: it must be a heap segment or of a shared or global arena, not a confined one.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags
     * @return the handle
     */
    public MemcpyHandle imemcpy(SmiAddress dst, MemorySegment src, long size, Set<MemcpyFlag> flags) {
        live();
        return copier.post(new Copier.RegionEnd(dst), new Copier.MemoryEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Imemcpy} from a region into private memory. The copy thread writes
     * {@code dst}: it must be a heap segment or of a shared or global arena, not a confined one.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags
     * @return the handle
     */
    public MemcpyHandle imemcpy(MemorySegment dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        live();
        return copier.post(new Copier.MemoryEnd(dst), new Copier.RegionEnd(src), size, flags);
    }

    /**
     * Implements {@code SMI_Memwait}.
     *
     * @param h the handle
     * @throws SmiException {@link SmiError#TRANSFER} if the copy failed; {@link SmiError#PARAM} for a bad handle
     */
    public void memwait(MemcpyHandle h) {
        live();
        copier.await(h);
    }

    /**
     * Implements {@code SMI_MemwaitAll}.
     *
     * @param hs the handles
     * @return the status of each ({@code SUCCESS} or {@code TRANSFER})
     * @throws SmiException {@link SmiError#OTHER} if one failed (statuses in its message)
     */
    public SmiError[] memwaitAll(MemcpyHandle... hs) {
        live();
        SmiError[] st = new SmiError[hs.length];
        boolean ok = true;
        for (int i = 0; i < hs.length; i++) {
            try {
                copier.await(hs[i]);
                st[i] = SmiError.SUCCESS;
            } catch (SmiException e) {
                st[i] = e.error();
                ok = false;
            }
        }
        if (!ok) {
            throw Errors.fail(SmiError.OTHER, "some copies failed: " + java.util.Arrays.toString(st));
        }
        return st;
    }

    /**
     * Implements {@code SMI_Memtest}.
     *
     * @param h the handle
     * @return {@code SUCCESS}, {@code PENDING}, {@code NOTPOSTED} or {@code TRANSFER}
     */
    public SmiError memtest(MemcpyHandle h) {
        live();
        return copier.test(h);
    }

    /**
     * Implements {@code SMI_MemtestAll}.
     *
     * @param hs the handles
     * @return the status of each
     */
    public SmiError[] memtestAll(MemcpyHandle... hs) {
        live();
        SmiError[] st = new SmiError[hs.length];
        for (int i = 0; i < hs.length; i++) {
            st[i] = copier.test(hs[i]);
        }
        return st;
    }

    /**
     * Implements {@code SMI_Put}: copies private memory into a region (for {@code RDMA} regions).
     *
     * @param rdma the destination region
     * @param offset where, 8-aligned
     * @param src the data
     * @throws SmiException {@link SmiError#BADADR} for a misaligned offset or source;
     *         {@link SmiError#PARAM} for a range outside the region
     */
    public void put(SmiRegion rdma, long offset, MemorySegment src) {
        live();
        checkRdma(rdma, offset, src);
        copier.copy(new Copier.RegionEnd(new SmiAddress(rdma, offset)), new Copier.MemoryEnd(src), src.byteSize(),
            Set.of());
    }

    /**
     * Implements {@code SMI_Get}: copies from a region into private memory.
     *
     * @param dst the destination
     * @param rdma the source region
     * @param offset where, 8-aligned
     * @throws SmiException {@link SmiError#BADADR} for a misaligned offset or destination;
     *         {@link SmiError#PARAM} for a range outside the region
     */
    public void get(MemorySegment dst, SmiRegion rdma, long offset) {
        live();
        checkRdma(rdma, offset, dst);
        copier.copy(new Copier.MemoryEnd(dst), new Copier.RegionEnd(new SmiAddress(rdma, offset)), dst.byteSize(),
            Set.of());
        job.context().rmb();
    }

    private static void checkRdma(SmiRegion r, long offset, MemorySegment m) {
        if (r == null || m == null) {
            throw Errors.fail(SmiError.PARAM, "region and memory must not be null");
        }
        if ((offset & 7) != 0 || (m.isNative() && (m.address() & 7) != 0)) {
            throw Errors.fail(SmiError.BADADR, "offset and buffer must be 8-byte aligned");
        }
        if (offset < 0 || offset > r.size() - m.byteSize()) {
            throw Errors.fail(SmiError.PARAM, "range [" + offset + ", +" + m.byteSize() + ") is outside the region");
        }
    }

    /**
     * Implements {@code SMI_Check_transfer}: store barrier unless {@code NOBARRIER}, load barrier
     * unless {@code NOFLUSH}; then whether a copy failed since the last check.
     *
     * @param flags flags
     * @throws SmiException {@link SmiError#TRANSFER} if a copy failed since the last check
     */
    public void checkTransfer(Set<CheckFlag> flags) {
        live();
        if (!flags.contains(CheckFlag.NOBARRIER)) {
            job.context().wmb();
        }
        if (!flags.contains(CheckFlag.NOFLUSH)) {
            job.context().rmb();
        }
        if (copier.failedSinceLastCheck()) {
            throw Errors.fail(SmiError.TRANSFER, "a memory transfer failed since the last check");
        }
    }

    /** {@code SMI_REP_EVERYTHING}. */
    public static final int REP_EVERYTHING = Replication.REP_EVERYTHING;
    /** {@code SMI_REP_NOTHING}. */
    public static final int REP_NOTHING = Replication.REP_NOTHING;
    /** {@code SMI_REP_LOCAL_AND_BEYOND}. */
    public static final int REP_LOCAL_AND_BEYOND = Replication.REP_LOCAL_AND_BEYOND;
    /** {@code SMI_REP_ONE_PER_NODE} (accepted; every process still gets its own copy). */
    public static final int REP_ONE_PER_NODE = Replication.REP_ONE_PER_NODE;
    /** {@code SMI_SHR_NOTHING}. */
    public static final int SHR_NOTHING = Replication.SHR_NOTHING;
    /** {@code SMI_SHR_SINGLE_SOURCE}. */
    public static final int SHR_SINGLE_SOURCE = Replication.SHR_SINGLE_SOURCE;
    /** {@code SMI_SHR_LOOP_SPLITTING} (obsolete: refused with {@code PARAM}). */
    public static final int SHR_LOOP_SPLITTING = Replication.SHR_LOOP_SPLITTING;
    /** {@code SMI_SHR_EVERY_LOCAL}. */
    public static final int SHR_EVERY_LOCAL = Replication.SHR_EVERY_LOCAL;
    /** {@code SMI_SHR_ADD}, or'ed with a {@code DTYPE}. */
    public static final int SHR_ADD = Replication.SHR_ADD;
    /** {@code SMI_DTYPE_FIXPOINT}. */
    public static final int DTYPE_FIXPOINT = Replication.DTYPE_FIXPOINT;
    /** {@code SMI_DTYPE_FLOATINGPOINT}. */
    public static final int DTYPE_FLOATINGPOINT = Replication.DTYPE_FLOATINGPOINT;
    /** {@code SMI_DTYPE_HIGHPRECISION}. */
    public static final int DTYPE_HIGHPRECISION = Replication.DTYPE_HIGHPRECISION;
    /** {@code SMI_SHR_SPARSE} (accepted). */
    public static final int SHR_SPARSE = Replication.SHR_SPARSE;

    /**
     * Implements {@code SMI_Switch_to_replication} (collective): from now on this process's
     * accesses through {@code r} go to a private copy. No effect if already replicated.
     *
     * @param r the region
     * @param mode {@link #REP_EVERYTHING}, {@link #REP_NOTHING} or {@link #REP_LOCAL_AND_BEYOND},
     *             optionally or'ed with {@link #REP_ONE_PER_NODE}
     * @param p1 {@code LOCAL_AND_BEYOND}: elements in the region's flat array
     * @param p2 {@code LOCAL_AND_BEYOND}: id of the scheduled loop over it (loops are numbered from 0)
     * @param p3 {@code LOCAL_AND_BEYOND}: neighbouring elements copied on each side
     * @throws SmiException {@link SmiError#PARAM} for a freed region, an unknown mode or bad parameters
     */
    public void switchToReplication(SmiRegion r, int mode, int p1, int p2, int p3) {
        live();
        replication.toReplication(r, mode, p1, p2, p3);
    }

    /**
     * Implements {@code SMI_Switch_to_sharing} (collective): combines the copies into the shared
     * region and accesses go to it again.
     *
     * @param r the region
     * @param combMode {@link #SHR_NOTHING}, {@link #SHR_SINGLE_SOURCE}, {@link #SHR_EVERY_LOCAL}, or
     *                 {@link #SHR_ADD} or'ed with {@link #DTYPE_FIXPOINT} / {@link #DTYPE_FLOATINGPOINT}
     *                 (and {@link #DTYPE_HIGHPRECISION}), optionally {@link #SHR_SPARSE}
     * @param p1 the source rank ({@code SINGLE_SOURCE}) or element count ({@code ADD})
     * @param p2 unused
     * @throws SmiException {@link SmiError#PARAM} for an unknown or obsolete mode or bad parameters
     */
    public void switchToSharing(SmiRegion r, int combMode, long p1, long p2) {
        live();
        replication.toSharing(r, combMode, p1, p2);
    }

    /**
     * Implements {@code SMI_Ensure_consistency} (collective): combines as
     * {@link #switchToSharing} and refreshes every copy; the region stays replicated.
     *
     * @param r the region
     * @param combMode as for {@link #switchToSharing}
     * @param p1 as for {@link #switchToSharing}
     * @param p2 unused
     * @throws SmiException {@link SmiError#PARAM} if the region is not replicated or the mode is bad
     */
    public void ensureConsistency(SmiRegion r, int combMode, long p1, long p2) {
        live();
        replication.ensure(r, combMode, p1, p2);
    }

    /**
     * Implements {@code SMI_Loop_init} (collective): a loop over {@code globalLow..globalHigh}
     * (inclusive) scheduled by affinity with load balancing (see {@link SmiLoop}).
     *
     * @param globalLow first iteration
     * @param globalHigh last iteration, not below {@code globalLow}
     * @param mode partition policy
     * @return the loop
     * @throws SmiException {@link SmiError#PARAM} if {@code globalHigh < globalLow};
     *         {@link SmiError#OTHER} for a null mode; {@link SmiError#NOMEM} beyond 32 loops
     */
    public SmiLoop loopInit(int globalLow, int globalHigh, LoopMode mode) {
        live();
        return loops.create(globalLow, globalHigh, mode);
    }

    /**
     * Implements {@code SMI_Evaluate_speed} (collective): every process times the same kernel.
     *
     * @return the speed of each process relative to the slowest (which gets 1)
     */
    public double[] evaluateSpeed() {
        live();
        return loops.evaluateSpeed();
    }
}
