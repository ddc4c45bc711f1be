package io.softcmi.smi;

import io.softcmi.smi.internal.Errors;
import io.softcmi.smi.internal.IoRedirect;
import io.softcmi.smi.internal.Messages;
import io.softcmi.smi.internal.Parts;
import io.softcmi.smi.internal.Replication;
import io.softcmi.smi.internal.Signals;
import io.softcmi.smi.internal.Watchdog;
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

    /** This process's collaborators: each call delegates to one of them. */
    private final Parts p;
    private boolean closed;

    private Smi(Parts p) {
        this.p = p;
    }

    /**
     * Implements {@code SMI_Init} (collective): joins the job {@code smirun} started (or makes a
     * job of this one process), attaches every process's control segment and meets them all.
     *
     * @param args the program's arguments ({@code smirun} passes none of its own)
     * @return this process's SMI instance
     * @throws SmiException {@link SmiError#OTHER} if already initialized in this process;
     *         {@link SmiError#NODEVICE} if no CMI node can be joined ({@code CMI_ERR_INIT}),
     *         {@link SmiError#NOMEM} if CMI has no resources left, {@link SmiError#OTHER} for any
     *         other CMI failure (a thread that already has a CMI context); {@link SmiError#PARAM}
     *         if the job environment is inconsistent
     */
    public static Smi init(String[] args) {
        synchronized (INIT_LOCK) {
            if (current != null) {
                throw Errors.fail(SmiError.OTHER, "SMI_Init was already called in this process");
            }
            current = new Smi(Parts.start());
            return current;
        }
    }

    /** Checks that SMI_Finalize was not called, then gives the collaborator a call delegates to. */
    private <T> T live(T part) {
        if (closed) {
            throw Errors.fail(SmiError.NOINIT, "SMI_Finalize was called");
        }
        return part;
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
            p.finish();
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
    public void rawAtmCas(int rank) { live(p.job()).rawAtmCasRoundTrip(Errors.checkRank(rank, procSize(), "rank")); }

    /**
     * Implements {@code SMI_Abort}: ends the whole application; never returns.
     *
     * @param code the exit code of the processes
     */
    public void abort(int code) { p.job().abort(code); }

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
     * @throws SmiException {@link SmiError#PARAM} if a mode is null, a {@code FILE} mode has no file
     *         name, or a file cannot be opened;
     *         {@link SmiError#NOINIT} after finalize
     */
    public void redirectIo(IoMode err, String errParam, IoMode out, String outParam, IoMode in, String inParam) {
        IoRedirect.redirect(procRank(), err, errParam, out, outParam, in, inParam);
    }

    /**
     * Implements {@code SMI_Watchdog}.
     *
     * @param timeoutSeconds seconds, {@link #WATCHDOG_DISABLE} or {@link #WATCHDOG_OFF}
     * @throws SmiException {@link SmiError#PARAM} if the value is illegal
     */
    public void watchdog(int timeoutSeconds) { live(p.watchdog()).timeout(timeoutSeconds); }

    /**
     * Implements {@code SMI_Watchdog_callback}: {@code onAbnormalEnd} runs in this process when the
     * application ends abnormally (a dead process, {@code SMI_Abort}).
     *
     * @param onAbnormalEnd the callback
     * @throws SmiException {@link SmiError#PARAM} if null
     */
    public void watchdogCallback(Runnable onAbnormalEnd) {
        live(p.job()).abnormalEnd(Errors.nonNull(onAbnormalEnd, "callback"));
    }

    /**
     * Implements {@code SMI_Debug}: debug lines on standard error.
     *
     * @param on whether to print them
     */
    public void debug(boolean on) { live(p.debug()).on(on); }

    /** @return {@code SMI_Proc_rank} */
    public int procRank() { return live(p.job()).rank(); }
    /** @return {@code SMI_Node_rank} */
    public int nodeRank() { return live(p.topology()).nodeRank(); }
    /** @return {@code SMI_Local_proc_rank}: the rank among this node's processes */
    public int localProcRank() { return live(p.topology()).localProcRank(); }

    /**
     * Implements {@code SMI_Proc_to_node}.
     *
     * @param rank a process
     * @return its node's rank
     * @throws SmiException {@link SmiError#PARAM} if no such process
     */
    public int procToNode(int rank) { return live(p.topology()).procToNode(rank); }

    /** @return {@code SMI_Proc_size} */
    public int procSize() { return live(p.job()).size(); }
    /** @return {@code SMI_Local_proc_size}: processes on this node */
    public int localProcSize() { return live(p.topology()).localProcSize(); }
    /** @return {@code SMI_Max_local_proc_size} */
    public int maxLocalProcSize() { return live(p.topology()).maxLocalProcSize(); }
    /** @return {@code SMI_Node_size} */
    public int nodeSize() { return live(p.job()).env().nodeSize(); }

    /**
     * Implements {@code SMI_First_proc_on_node}.
     *
     * @param node a node rank
     * @return the lowest process rank on it
     * @throws SmiException {@link SmiError#PARAM} if no such node
     */
    public int firstProcOnNode(int node) { return live(p.topology()).firstProcOnNode(node); }

    /** @return {@code SMI_Get_node_name}: the name smirun gave this node (its host, or its pseudo-host) */
    public String nodeName() { return live(p.topology()).nodeName(); }
    /** @return {@code SMI_Get_timer}: the current system time (since the epoch) */
    public Duration timer() { return live(p.clock()).timer(); }
    /** @return {@code SMI_Get_timespan}: time since the last {@code timer}/{@code timespan} call or since init */
    public Duration timespan() { return live(p.clock()).timespan(); }
    /** @return {@code SMI_Get_ticks}: a high-resolution counter, in nanoseconds ({@code System.nanoTime}) */
    public long ticks() { return live(p.clock()).ticks(); }
    /** @return {@code SMI_Wtime}: wall-clock seconds since an arbitrary point */
    public double wtime() { return live(p.clock()).wtime(); }
    /** @return {@code SMI_Page_size}: the granularity regions are rounded to */
    public int pageSize() { return (int) live(p).page(); }

    /**
     * Implements {@code SMI_Query} for integer-valued queries (see {@link SmiQuery} for what each
     * answers on TCP).
     *
     * @param q the query
     * @param arg its argument (adapter, rank or region id; ignored where none)
     * @return the result
     * @throws SmiException {@link SmiError#PARAM} for a bad argument, a null query or a string-valued query;
     *         {@link SmiError#NOINIT} after finalize (except {@code SMI_INITIALIZED})
     */
    public long query(SmiQuery q, int arg) {
        if (q == null) {
            throw new SmiException(SmiError.PARAM, "SMI_Query: no query given");
        }
        if (q == SmiQuery.SMI_INITIALIZED) {
            return closed ? 0 : 1;
        }
        return live(p.queries()).query(q, arg);
    }

    /**
     * Implements {@code SMI_Query(SMI_Q_SCI_API_VERSION)}.
     *
     * @param q {@link SmiQuery#SCI_API_VERSION}
     * @return the transport's version string
     * @throws SmiException {@link SmiError#PARAM} for another query
     */
    public String queryString(SmiQuery q) { return live(p.queries()).queryString(q); }

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
     *         more segments can be exported; {@link SmiError#NOTIMPL} for {@code REGISTER} with an
     *         {@code UNDIVIDED}, {@code LOCAL} or {@code PT2PT} region ({@code PARAM} with another type);
     *         {@link SmiError#OTHER} for {@code PT2PT} if the other process of the pair entered
     *         {@code SMI_Finalize} without creating it, so the rendezvous could never complete
     *         (checked while the wait blocks, every 250 ms, or every 256 polls with
     *         {@code SMI_WAKER=poll}; nothing is left created).
     *         The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    public SmiRegion createShreg(RegionType type, RegionInfo desc, Set<RegionFlag> flags) {
        return live(p.regions()).create(type, desc, flags);
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
    public SmiRegion adrToRegion(SmiAddress a) { return live(p.regions()).adrToRegion(a); }

    /**
     * Implements {@code SMI_Barrier}: a dissemination barrier. In each of ceil(log2 N) rounds this
     * process posts the barrier's number into the control segment of the process 2^round ranks on
     * and waits, on its own local memory, for the one 2^round ranks back; no central counter.
     */
    public void barrier() { live(p.job()).barrier(); }

    /** @return {@code SMI_Mutex_init} (collective): a mutex whose queue tail is spread over the processes */
    public SmiMutex mutexInit() { return live(p.mutexes()).create(-1); }

    /**
     * Implements {@code SMI_Mutex_init_with_locality} (collective).
     *
     * @param rank the process whose node holds the mutex
     * @return the mutex
     */
    public SmiMutex mutexInitWithLocality(int rank) { return live(p.mutexes()).create(rank); }

    /** @return {@code SMI_Init_PC} (collective): a new progress counter, 0 everywhere */
    public ProgressCounter initPc() { return live(p.counters()).create(); }

    /**
     * Implements {@code SMI_Signal_wait}.
     *
     * @param rank the sender, or {@link #SIGNAL_ANY}
     * @throws SmiException {@link SmiError#PARAM} if no such rank; {@link SmiError#OTHER} if the
     *         sender (for {@code SIGNAL_ANY} every other process) entered {@code SMI_Finalize} and
     *         no signal of it is left, so the wait could never end (checked while the wait blocks,
     *         every 250 ms, or every 256 polls with {@code SMI_WAKER=poll}). The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    public void signalWait(int rank) { live(p.signals()).await(rank); }

    /**
     * Implements {@code SMI_Signal_send}.
     *
     * @param rank the receiver, or {@link #SIGNAL_BCAST}
     */
    public void signalSend(int rank) { live(p.signals()).send(rank); }

    /**
     * Implements {@code SMI_Signal_setCallBack}.
     *
     * @param rank the sender, or {@link #SIGNAL_ANY}
     * @param callback run (on a thread of its own) when the signal arrives
     * @return the handle to join
     */
    public SignalHandle signalSetCallback(int rank, Runnable callback) {
        return live(p.signals()).callback(rank, callback);
    }

    /**
     * Implements {@code SMI_Signal_joinCallBack}.
     *
     * @param h the handle
     * @throws SmiException {@link SmiError#PARAM} for a bad handle; {@link SmiError#OTHER} if the
     *         callback never ran because its sender entered {@code SMI_Finalize} first (as
     *         {@link #signalWait})
     */
    public void signalJoinCallback(SignalHandle h) { live(p.signals()).join(h); }

    /**
     * Implements {@code SMI_Send} (synchronous: returns once {@code dest} read it).
     *
     * @param buf data
     * @param count bytes, at most {@link #MP_MAXDATA}
     * @param dest receiver
     * @throws SmiException {@link SmiError#PARAM} for more than {@link #MP_MAXDATA} bytes or no
     *         such rank; {@link SmiError#OTHER} if {@code dest} entered {@code SMI_Finalize}
     *         without reading this (or the previous) message, so the send could never complete
     *         (checked while the wait blocks, every 250 ms, or every 256 polls with {@code SMI_WAKER=poll}). The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    public void send(byte[] buf, int count, int dest) { live(p.messages()).send(buf, count, dest); }

    /**
     * Implements {@code SMI_Isend}.
     *
     * @param buf data
     * @param count bytes, at most {@link #MP_MAXDATA}
     * @param dest receiver
     * @throws SmiException {@link SmiError#PENDING} if the previous message to {@code dest} is unread
     */
    public void isend(byte[] buf, int count, int dest) { live(p.messages()).isend(buf, count, dest); }

    /**
     * Implements {@code SMI_Send_wait}.
     *
     * @param dest receiver
     * @throws SmiException {@link SmiError#PARAM} if no such rank; {@link SmiError#OTHER} if
     *         {@code dest} entered {@code SMI_Finalize} without reading the last message (as
     *         {@link #send})
     */
    public void sendWait(int dest) { live(p.messages()).sendWait(dest); }

    /**
     * Implements {@code SMI_Recv}.
     *
     * @param buf where the data goes
     * @param count bytes
     * @param src sender
     * @throws SmiException {@link SmiError#PARAM} for more than {@link #MP_MAXDATA} bytes or no
     *         such rank; {@link SmiError#OTHER} if {@code src} entered {@code SMI_Finalize} and no
     *         message of it is left (one it sent before is received), so the wait could never end
     *         (checked while the wait blocks, every 250 ms, or every 256 polls with {@code SMI_WAKER=poll}). The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    public void recv(byte[] buf, int count, int src) { live(p.messages()).recv(buf, count, src); }

    /**
     * Implements {@code SMI_Sendrecv}.
     *
     * @param s data to send
     * @param r where the received data goes
     * @param count bytes each way
     * @param peer the other process
     * @throws SmiException {@link SmiError#PARAM} as {@link #send} and {@link #recv};
     *         {@link SmiError#OTHER} if {@code peer} entered {@code SMI_Finalize} with no message
     *         for this process left (as {@link #recv}) or without reading this one (as
     *         {@link #sendWait}; {@code r} then holds the message received)
     */
    public void sendrecv(byte[] s, byte[] r, int count, int peer) { live(p.messages()).sendrecv(s, r, count, peer); }

    /**
     * Implements {@code SMI_Memcpy} between region addresses.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags {@code NOBARRIER}, {@code FAST}, ...
     */
    public void memcpy(SmiAddress dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        live(p.transfers()).memcpy(dst, src, size, flags);
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
        live(p.transfers()).memcpy(dst, src, size, flags);
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
        live(p.transfers()).memcpy(dst, src, size, flags);
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
        return live(p.transfers()).imemcpy(dst, src, size, flags);
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
        return live(p.transfers()).imemcpy(dst, src, size, flags);
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
        return live(p.transfers()).imemcpy(dst, src, size, flags);
    }

    /**
     * Implements {@code SMI_Memwait}.
     *
     * @param h the handle
     * @throws SmiException {@link SmiError#TRANSFER} if the copy's transfer failed, or the copy's
     *         own error otherwise (a {@code PARAM} for a region not connected, or freed, before
     *         the copy ran); {@link SmiError#PARAM} for a bad handle
     */
    public void memwait(MemcpyHandle h) { live(p.transfers()).memwait(h); }

    /**
     * Implements {@code SMI_MemwaitAll}.
     *
     * @param hs the handles
     * @return the status of each: all {@code SUCCESS}
     * @throws SmiException {@link SmiError#OTHER} if one failed: the status of each
     *         ({@code SUCCESS}, {@code TRANSFER}, {@code PARAM} for an illegal handle) in
     *         {@link SmiException#statuses()}
     */
    public SmiError[] memwaitAll(MemcpyHandle... hs) { return live(p.transfers()).memwaitAll(hs); }

    /**
     * Implements {@code SMI_Memtest}.
     *
     * @param h the handle
     * @return {@code SUCCESS}, {@code PENDING}, {@code NOTPOSTED} or {@code TRANSFER}
     */
    public SmiError memtest(MemcpyHandle h) { return live(p.transfers()).memtest(h); }

    /**
     * Implements {@code SMI_MemtestAll}.
     *
     * @param hs the handles
     * @return the status of each: all {@code SUCCESS}
     * @throws SmiException {@link SmiError#OTHER} unless every copy completed successfully: the
     *         status of each ({@code SUCCESS}, {@code PENDING}, {@code NOTPOSTED}, {@code TRANSFER})
     *         in {@link SmiException#statuses()}; {@link SmiError#PARAM} for an illegal handle
     */
    public SmiError[] memtestAll(MemcpyHandle... hs) { return live(p.transfers()).memtestAll(hs); }

    /**
     * Implements {@code SMI_Put}: copies private memory into a region (meant for {@code RDMA}
     * regions; any region type is taken).
     *
     * @param rdma the destination region
     * @param offset where, 8-aligned
     * @param src the data
     * @throws SmiException {@link SmiError#BADADR} for a misaligned offset or a misaligned native
     *         source (a heap segment's alignment is not checked);
     *         {@link SmiError#PARAM} for a range outside the region
     */
    public void put(SmiRegion rdma, long offset, MemorySegment src) { live(p.transfers()).put(rdma, offset, src); }

    /**
     * Implements {@code SMI_Get}: copies from a region into private memory.
     *
     * @param dst the destination
     * @param rdma the source region
     * @param offset where, 8-aligned
     * @throws SmiException {@link SmiError#BADADR} for a misaligned offset or a misaligned native
     *         destination (a heap segment's alignment is not checked);
     *         {@link SmiError#PARAM} for a range outside the region
     */
    public void get(MemorySegment dst, SmiRegion rdma, long offset) { live(p.transfers()).get(dst, rdma, offset); }

    /**
     * Implements {@code SMI_Check_transfer}: store barrier unless {@code NOBARRIER}, load barrier
     * unless {@code NOFLUSH}; then whether a copy failed since the last check.
     *
     * @param flags flags
     * @throws SmiException {@link SmiError#TRANSFER} if a copy failed since the last check
     */
    public void checkTransfer(Set<CheckFlag> flags) { live(p.transfers()).checkTransfer(flags); }

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
        live(p.replication()).toReplication(r, mode, p1, p2, p3);
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
        live(p.replication()).toSharing(r, combMode, p1, p2);
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
        live(p.replication()).ensure(r, combMode, p1, p2);
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
        return live(p.loops()).create(globalLow, globalHigh, mode);
    }

    /**
     * Implements {@code SMI_Evaluate_speed} (collective): every process times the same kernel.
     *
     * @return the speed of each process relative to the slowest (which gets 1)
     */
    public double[] evaluateSpeed() { return live(p.loops()).evaluateSpeed(); }
}
