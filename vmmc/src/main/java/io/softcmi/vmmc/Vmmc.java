package io.softcmi.vmmc;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.vmmc.internal.Directory;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A process's VMMC endpoint (the {@code vmmc_*} calls), on the public CMI API. A receive buffer
 * is a CMI segment created and exported by its receiver ({@code WRITE_THROUGH}) and protected by
 * a token; an import is {@code seg_imp} plus that token; {@code SendData} is a remote write
 * through the import's mapping followed by a segment notification that makes the receiver copy
 * the words into its user buffer; a buffer that receives in place (its segment is the buffer:
 * {@link #allocate}'s memory) gets the store alone, and a notification only for
 * {@code SendDataNotify} (see {@code docs/vmmc.md}).
 *
 * <p>Calls are made from the thread that called {@link #init()} or from a notification handler;
 * asynchronous requests run on threads of this object.
 */
public final class Vmmc implements AutoCloseable {
    /** Bytes per VMMC word ({@code vmmc_WordSize}). */
    public static final int WORD = 4;
    /** Bytes per VMMC page ({@code vmmc_PageSize}). */
    public static final int PAGE = 4096;

    final CmiContext ctx;
    final VmmcSession session;
    final Directory directory;
    final Receiver receiver;
    final DestSpace destSpace;
    final Async async;
    /** What {@link #allocate} hands out: segments a receive buffer can be exported from without a copy. */
    final ReceiveMemory memory;
    final SendWindow window = new SendWindow();
    private final CmiMapping wakeMapping;
    private final Exports exports = new Exports(this);
    /** Processes started by {@link #spawn}; {@link #close} waits for them (60 s), then ends those left. */
    final List<Spawner.Child> children = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile int debugLevel;
    /** Set when {@link #close} starts: transfers fail from then on ({@link Transfer#check}). */
    volatile boolean closed;

    private Vmmc(VmmcSession session) {
        this.session = session;
        this.ctx = Cmi.init(new CmiVersion(1, 1));
        ctx.enable(true);
        this.directory = new Directory(session.share(), session.name());
        CmiSegment wake = ctx.segGet(PAGE, Set.of());
        this.wakeMapping = ctx.segAt(wake, Set.of());
        this.receiver = new Receiver(wake.id());
        this.destSpace = new DestSpace();
        // Inline: the copy and the VMMC handler run where the notice is read, with no hand-over
        // to another thread (the manual's handlers must not block, as inline handlers must not).
        Notifications.inbox(ctx).onNotificationInline(receiver::onNotification);
        if (session.fixedPid() > 0) {
            directory.register(session.me().name(), session.fixedPid());
            session.pid(session.fixedPid());
        } else {
            session.pid(directory.registerNext(session.me().name()));
        }
        this.async = new Async(this);
        this.memory = new ReceiveMemory(ctx, async.arena);
    }

    /**
     * Implements VMMC initialisation: joins the session named by {@code VMMCSESSION} (default
     * {@code default}) with the hosts of {@code VMMCHOSTS} (default this host), registers a
     * logical pid and opens a CMI context on this thread.
     *
     * @return the endpoint
     */
    public static Vmmc init() {
        return new Vmmc(VmmcSession.fromEnvironment());
    }

    // ---- cluster and process information ----

    /**
     * Implements {@code vmmc_AllHosts}.
     *
     * @return every host of the cluster
     */
    public List<VmmcNode> allHosts() {
        return session.hosts();
    }

    /**
     * Implements {@code vmmc_SessionHosts}.
     *
     * @return the hosts of the current session
     */
    public List<VmmcNode> sessionHosts() {
        return session.hosts();
    }

    /**
     * Implements {@code vmmc_MyNode}.
     *
     * @return this process's node
     */
    public VmmcNode myNode() {
        return session.me();
    }

    /**
     * Implements {@code vmmc_MyPid}.
     *
     * @return this process's logical pid
     */
    public VmmcPid myPid() {
        return new VmmcPid(session.pid());
    }

    /**
     * Implements {@code vmmc_MyHostName}.
     *
     * @return this process's host name
     */
    public String myHostName() {
        return session.me().name();
    }

    /**
     * Implements {@code vmmc_NameToNode}.
     *
     * @param host a host name
     * @return its node
     * @throws VmmcException NO_SUCH_NODE if the host is not in the cluster
     */
    public VmmcNode nameToNode(String host) {
        return session.hosts().stream().filter(n -> n.name().equals(host)).findFirst()
            .orElseThrow(() -> new VmmcException(VmmcResult.NO_SUCH_NODE, host));
    }

    /**
     * Implements {@code vmmc_NodeToName}.
     *
     * @param n a node
     * @return its host name
     * @throws VmmcException NO_SUCH_NODE if the node is not in the cluster
     */
    public String nodeToName(VmmcNode n) {
        return session.check(n).name();
    }

    /**
     * Implements {@code vmmc_EqualNodes}.
     *
     * @param a a node
     * @param b a node
     * @return whether they are the same node
     */
    public boolean equalNodes(VmmcNode a, VmmcNode b) {
        return a != null && b != null && a.id() == b.id();
    }

    /**
     * Implements {@code vmmc_PageSize}.
     *
     * @return 4096
     */
    public int pageSize() {
        return PAGE;
    }

    /**
     * Implements {@code vmmc_WordSize}.
     *
     * @return 4
     */
    public int wordSize() {
        return WORD;
    }

    /**
     * Implements {@code vmmc_Version}.
     *
     * @return {major, minor}: 2.0
     */
    public int[] version() {
        return new int[] {2, 0};
    }

    /**
     * Implements {@code vmmc_SetDebugLevel}: at a positive level each {@code ExportRecvBuf} and
     * {@code ImportRecvBuf}, and any cleanup that failed, is logged ({@code System.Logger}
     * {@code io.softcmi.vmmc}, INFO).
     *
     * @param level the level
     */
    public void setDebugLevel(int level) {
        this.debugLevel = level;
    }

    /**
     * Implements {@code vmmc_ErrorStr}.
     *
     * @param code a result code
     * @return its description; for a number that is no result code, {@code vmmcErr_BadArg}'s
     */
    public static String errorStr(int code) {
        return VmmcResult.of(code).errorStr();
    }

    void debug(String what) {
        if (debugLevel > 0) {
            System.getLogger("io.softcmi.vmmc").log(System.Logger.Level.INFO, "vmmc[" + session.pid() + "] " + what);
        }
    }

    // ---- receive buffers ----

    /**
     * Memory a receive buffer can live in: page aligned, zeroed, {@code nwords} words, freed when
     * this endpoint closes. It is the mapping of a CMI segment of this node ({@link ReceiveMemory}):
     * a buffer exported from its start receives messages straight into it, without the copy a
     * buffer elsewhere costs on every message (unless it is {@link BufFlag#REDIRECTABLE}). When
     * no segment can be made, it is plain memory of this process, which receives with that copy.
     *
     * @param nwords the size in words
     * @return the memory
     * @throws VmmcException BAD_SIZE if {@code nwords <= 0}; NO_MEM if it cannot be allocated
     */
    public MemorySegment allocate(long nwords) {
        if (nwords <= 0) {
            throw new VmmcException(VmmcResult.BAD_SIZE, "nwords " + nwords);
        }
        try {
            return memory.allocate(nwords * WORD, PAGE);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            throw new VmmcException(VmmcResult.NO_MEM, nwords + " words");
        }
    }

    /**
     * Implements {@code vmmc_ExportRecvBuf}: makes {@code buf} a receive buffer. Its CMI segment
     * (page rounded, {@code WRITE_THROUGH}) gets a token for any node with READ for
     * {@code READ_ONLY}, WRITE for {@code WRITE_ONLY}, both for {@code READWRITE}; the export is
     * published in the session directory. The buffer's current contents are copied into the
     * segment (what {@code GetData} sees before anything is sent).
     *
     * @param buf the buffer's memory (word aligned, at least {@code nwords} words)
     * @param nwords the size in words
     * @param rbufid the buffer id, unique among this process's exports
     * @param proc the notification handler, or null
     * @param flags one of WRITE_ONLY, READ_ONLY, READWRITE, optionally REDIRECTABLE and GLOBAL_SPACE
     * @param perm export permissions: must be 0 (not used by the manual either)
     * @return the handle
     * @throws VmmcException BAD_SIZE, BAD_ALIGNMENT, BAD_ARG (flags, short buffer),
     *         BUF_ALREADY_EXISTS, OVERLAPPED_BUFS, NOT_IMPLEMENTED ({@code perm != 0}); NO_MEM if CMI
     *         is out of resources for its segment, export or token ({@code CMI_ERR_NOMEM}),
     *         BAD_RBUF_STATE if CMI refuses them otherwise
     */
    public synchronized ExportHandle exportRecvBuf(MemorySegment buf, long nwords, int rbufid, VmmcCallback proc,
            Set<BufFlag> flags, int perm) {
        debug("ExportRecvBuf id=" + rbufid + " nwords=" + nwords);
        return exports.export(buf, nwords, rbufid, proc, flags, perm);
    }

    /**
     * Implements {@code vmmc_UnexportRecvBuf}: withdraws the buffer from the directory (later
     * imports fail with BAD_RBUF_STATE), deletes its token (importers' further sends fail with
     * BAD_IBUF_STATE), waits until the messages accepted before that are in the buffer (unless
     * called from a handler; at most 10 s, after which it goes on and logs at debug level), and
     * removes its segment; nothing arriving afterwards reaches the buffer.
     * It does not hold the endpoint while it waits, so a handler may export or unexport meanwhile.
     *
     * @param h the handle
     * @throws VmmcException BAD_ARG for a handle of another process; BAD_RBUF_STATE if already
     *         unexported (or being unexported); BLOCKED_NOTIFICATIONS if blocked notifications for it are queued
     */
    public void unexportRecvBuf(ExportHandle h) {
        synchronized (this) {
            exports.withdraw(h);
        }
        exports.awaitAccepted(h);
        synchronized (this) {
            exports.drop(h);
        }
    }

    // ---- imports ----

    /**
     * Implements {@code vmmc_ImportRecvBuf}: waits (up to {@code vmmc.importTimeoutMs}, default
     * 30 s) for the buffer to be exported, then imports it.
     *
     * @param node the exporter's node
     * @param pid the exporter's pid
     * @param rbufid the buffer id
     * @return the import, with its DestSpace address and size
     * @throws VmmcException NO_SUCH_NODE, NO_SUCH_PROCESS (a pid that is not positive at once; one
     *         not registered in the session, or no longer, once {@code vmmc.importTimeoutMs} has
     *         passed), BAD_RBUF_STATE
     *         (unexported, not exported in time, or CMI refuses the import), NO_PHYS_DEST_SPACE,
     *         NO_VIRT_DEST_SPACE, NO_MEM (CMI out of resources for the import: {@code CMI_ERR_NOMEM})
     */
    public ImportHandle importRecvBuf(VmmcNode node, VmmcPid pid, int rbufid) {
        debug("ImportRecvBuf " + node + " " + pid + " id=" + rbufid);
        return Importer.importNow(this, node, pid, rbufid, Importer.timeoutNanos());
    }

    /**
     * Implements {@code vmmc_ImportRecvBufAsync}: starts the import on a thread of this endpoint.
     *
     * @param node the exporter's node
     * @param pid the exporter's pid
     * @param rbufid the buffer id
     * @return the request, for {@link #importRecvBufStatus}
     * @throws VmmcException NO_SUCH_NODE
     */
    public ImportRequest importRecvBufAsync(VmmcNode node, VmmcPid pid, int rbufid) {
        session.check(node);
        ImportRequest r = new ImportRequest(this);
        async.importAsync(r, node, pid, rbufid);
        return r;
    }

    /**
     * Implements {@code vmmc_ImportRecvBufStatus}.
     *
     * @param r the request
     * @return the import once complete
     * @throws VmmcException IN_PROGRESS while pending; BAD_ASYNC_HANDLE for a foreign or null
     *         request; STATE_HANDLE if its completion was already reported; the import's error
     */
    public ImportHandle importRecvBufStatus(ImportRequest r) {
        return Importer.status(this, r);
    }

    /**
     * Implements {@code vmmc_UnimportRecvBuf}: frees the DestSpace region and the CMI import.
     *
     * @param h the import
     * @throws VmmcException BAD_ARG for a foreign handle; BAD_IBUF_STATE if already unimported
     */
    public void unimportRecvBuf(ImportHandle h) {
        Importer.unimport(this, h);
    }

    // ---- data transfer ----

    /**
     * Implements {@code vmmc_SendData}: returns after the message has been written to the network
     * (the manual's words; {@code localSrc} may be reused), without waiting for the home's
     * answer when the buffer is remote ({@link SendWindow}, {@code vmmc.sendWindow}); a refusal
     * by the home is thrown by a later transfer call.
     *
     * @param localSrc the data (word aligned, at least {@code nwords} words)
     * @param remoteDestProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @throws VmmcException BAD_SIZE, BAD_ALIGNMENT, BAD_ARG, BAD_PROXY_ADDR (no import, or first
     *         and last word in different imports), BAD_PROXY_EXTENSION (past the end of the
     *         import), BAD_IBUF_STATE (READ_ONLY buffer, unexported or unreachable buffer; or an
     *         earlier pipelined SendData of this process that the home refused)
     */
    public void sendData(MemorySegment localSrc, long remoteDestProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localSrc, remoteDestProxyAddr, nwords, true);
        async.drain();
        t.send(false, Transfer.Mode.PIPELINED);
    }

    /**
     * Implements {@code vmmc_SendDataAsync}: queued in order after earlier asynchronous requests.
     *
     * @param localSrc the data; must not change until the request completes
     * @param remoteDestProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @return the request, for {@link #asyncStatus}
     * @throws VmmcException as {@link #sendData}, for the checks made before queuing
     */
    public AsyncHandle sendDataAsync(MemorySegment localSrc, long remoteDestProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localSrc, remoteDestProxyAddr, nwords, true);
        return async.submit(() -> t.send(false, Transfer.Mode.SYNCHRONOUS));
    }

    /**
     * Implements {@code vmmc_SendDataNotify}: as {@link #sendData}, and the buffer's handler runs
     * in the receiver after the data is in its buffer. The process's earlier pipelined messages
     * are waited for first (a refusal among them is thrown and this message is not sent); this
     * one returns once written to the network, and the home's answer to it is awaited, and a
     * refusal thrown, by the next transfer call ({@link SendWindow}).
     *
     * @param localSrc the data
     * @param remoteDestProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @throws VmmcException as {@link #sendData}
     */
    public void sendDataNotify(MemorySegment localSrc, long remoteDestProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localSrc, remoteDestProxyAddr, nwords, true);
        async.drain();
        t.send(true, Transfer.Mode.AFTER_EARLIER);
    }

    /**
     * Implements {@code vmmc_SendDataAsyncNotify}.
     *
     * @param localSrc the data; must not change until the request completes
     * @param remoteDestProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @return the request
     * @throws VmmcException as {@link #sendData}
     */
    public AsyncHandle sendDataAsyncNotify(MemorySegment localSrc, long remoteDestProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localSrc, remoteDestProxyAddr, nwords, true);
        return async.submit(() -> t.send(true, Transfer.Mode.SYNCHRONOUS));
    }

    /**
     * Implements {@code vmmc_GetData}: fetches words of an imported buffer's segment.
     *
     * @param localDst where the words go (word aligned, at least {@code nwords} words)
     * @param remoteSrcProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @throws VmmcException as {@link #sendData}; BAD_IBUF_STATE for a WRITE_ONLY buffer
     */
    public void getData(MemorySegment localDst, long remoteSrcProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localDst, remoteSrcProxyAddr, nwords, false);
        async.drain();
        t.get();
    }

    /**
     * Implements {@code vmmc_GetDataAsync}.
     *
     * @param localDst where the words go
     * @param remoteSrcProxyAddr a DestSpace address inside an imported buffer
     * @param nwords the number of words
     * @return the request
     * @throws VmmcException as {@link #getData}
     */
    public AsyncHandle getDataAsync(MemorySegment localDst, long remoteSrcProxyAddr, long nwords) {
        Transfer t = Transfer.check(this, localDst, remoteSrcProxyAddr, nwords, false);
        return async.submit(t::get);
    }

    /**
     * Implements {@code vmmc_AsyncStatus}.
     *
     * @param h a request
     * @return SUCCESS's code when complete, IN_PROGRESS's while pending, or the request's error
     *         code; BAD_ASYNC_HANDLE's code for a null or foreign handle
     */
    public int asyncStatus(AsyncHandle h) {
        if (h == null || h.owner != this) {
            return VmmcResult.BAD_ASYNC_HANDLE.code();
        }
        return h.status;
    }

    // ---- notifications ----

    /** Implements {@code vmmc_BlockNotifications} (nests; waits for a handler running on another thread). */
    public void blockNotifications() {
        receiver.block();
    }

    /**
     * Implements {@code vmmc_UnblockNotifications}.
     *
     * @return the remaining blocking levels; 0 when notifications are unblocked (or were not blocked)
     * @throws VmmcException NOT_IN_HANDLER when called in a handler at the handler's own level
     */
    public int unblockNotifications() {
        return receiver.unblock(() -> wake(0));
    }

    /** Sends this process a notice on its private wake segment, through its node. @param value the notice's value */
    void wake(long value) {
        Notifications.notify(wakeMapping, 0, value);
    }

    // ---- redirection ----

    /**
     * Implements {@code vmmc_PostRedir}: words {@code [redirOffsetWords, redirOffsetWords+numWords)}
     * of the next message that reaches them go to {@code userBuf} (word {@code i} of the window at
     * word {@code i} of {@code userBuf}) instead of the receive buffer.
     *
     * @param h a REDIRECTABLE export
     * @param redirOffsetWords the first buffer word redirected
     * @param numWords the number of words
     * @param userBuf the destination (at least {@code numWords} words, word aligned)
     * @throws VmmcException BAD_RBUF_STATE (not redirectable, or a redirection already posted),
     *         BAD_SIZE, BAD_ARG, BAD_ALIGNMENT
     */
    public void postRedir(ExportHandle h, long redirOffsetWords, long numWords, MemorySegment userBuf) {
        exports.check(h);
        Redirections.post(h, redirOffsetWords, numWords, userBuf);
    }

    /**
     * Implements {@code vmmc_EndRedir}: ends the posted redirection.
     *
     * @param h the export
     * @return how many words went to the user buffer and the index there of the first one
     *         ({@code 0, 0} if none)
     * @throws VmmcException BAD_RBUF_STATE if no redirection is posted
     */
    public Redirection endRedir(ExportHandle h) {
        exports.check(h);
        return Redirections.end(h);
    }

    /**
     * Implements {@code vmmc_DataEnd}.
     *
     * @param h a REDIRECTABLE export
     * @return the buffer word index of the last word of the last message, or
     *         {@code vmmcErr_NoSuchError}'s code if none arrived since export or ClearDataEnd
     * @throws VmmcException BAD_RBUF_STATE if the buffer is not REDIRECTABLE
     */
    public long dataEnd(ExportHandle h) {
        exports.check(h);
        return Redirections.dataEnd(h);
    }

    /**
     * Implements {@code vmmc_ClearDataEnd}.
     *
     * @param h a REDIRECTABLE export
     * @throws VmmcException BAD_RBUF_STATE if the buffer is not REDIRECTABLE
     */
    public void clearDataEnd(ExportHandle h) {
        exports.check(h);
        Redirections.clearDataEnd(h);
    }

    // ---- processes ----

    /**
     * Implements {@code vmmc_Spawn}: starts {@code execFile} (a Java main class on this process's
     * class path) in a new JVM for {@code node}, with this process as its parent. Its output goes
     * to {@code VMMC_<node>.<pid>} in the session's output directory.
     *
     * @param execFile the main class
     * @param argv its arguments
     * @param node the node it runs for
     * @return its pid
     * @throws VmmcException NO_SUCH_NODE; NOT_IN_HANDLER inside a handler; NO_SUCH_PROCESS if it cannot start
     */
    public VmmcPid spawn(String execFile, String[] argv, VmmcNode node) {
        if (receiver.onHandlerThread()) {
            throw new VmmcException(VmmcResult.NOT_IN_HANDLER, "vmmc_Spawn");
        }
        return Spawner.spawn(this, execFile, argv == null ? new String[0] : argv, session.check(node));
    }

    /**
     * Implements {@code vmmc_Parent}.
     *
     * @return the process that spawned this one, if it was spawned
     */
    public Optional<ProcessId> parent() {
        return session.parent();
    }

    /** The processes registered in this session (for tools). @return {@code HOST.PID} names */
    public List<String> sessionProcesses() {
        return new ArrayList<>(directory.processes());
    }

    Path share() {
        return session.share();
    }

    /**
     * Ends VMMC in this process: unexports every buffer, stops its threads, leaves the session and
     * closes the CMI context. Transfers made once it has begun (by a handler still running) fail
     * with BAD_IBUF_STATE.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        async.drain();
        VmmcException earlier = window.drain();
        if (earlier != null) {
            debug("close: " + earlier.getMessage());
        }
        exports.withdrawAll();
        async.close();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        for (Spawner.Child c : children) {
            try {
                if (!c.waitFor(Math.max(0, deadline - System.nanoTime()))) {
                    c.kill();
                }
            } catch (InterruptedException e) {
                c.kill();
                Thread.currentThread().interrupt();
            }
        }
        directory.unregister(myHostName(), session.pid());
        ctx.close();
    }

    /** A failed CMI call of a transfer ({@code what}): BAD_IBUF_STATE. */
    static VmmcException fromCmi(RuntimeException e, String what) {
        return new VmmcException(VmmcResult.BAD_IBUF_STATE, what + ": " + cmiFailure(e));
    }

    /**
     * A failed CMI call while exporting or importing a buffer ({@code what}): NO_MEM where CMI
     * was out of resources ({@code CMI_ERR_NOMEM}: memory, segments, tokens), {@code otherwise}
     * for the rest.
     */
    static VmmcException fromCmi(RuntimeException e, VmmcResult otherwise, String what) {
        boolean noMem = e instanceof io.softcmi.cmi.CmiException c && c.error() == io.softcmi.cmi.CmiError.NOMEM;
        return new VmmcException(noMem ? VmmcResult.NO_MEM : otherwise, what + ": " + cmiFailure(e));
    }

    private static String cmiFailure(RuntimeException e) {
        return e instanceof CmiAccessException a ? a.accessError().toString() : e.getMessage();
    }
}
