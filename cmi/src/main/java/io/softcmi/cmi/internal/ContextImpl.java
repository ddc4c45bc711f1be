package io.softcmi.cmi.internal;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiCapability;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.EventReturn;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.FlushEpoch;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.Reservation;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegInfo;
import io.softcmi.cmi.SegRange;
import io.softcmi.cmi.SegStatus;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.LongValue;
import io.softcmi.wire.ControlMessage.Ok;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A CMI context ({@code cmi_ctxt}): one process's session with its node. Control calls go to the
 * node over {@link NodeChannel}; loads and stores of local segments go straight to the mapping.
 *
 * <p>Thread association ({@code ini_th}/{@code fini}) is per thread and checked on every call
 * ({@link ContextThreads}); when the last associated thread calls {@code fini}, the context ends:
 * its mappings are unmapped and its connection closed, which the node treats exactly like the
 * process exiting.
 */
final class ContextImpl implements CmiContext {
    private static final Set<CmiCapability> CAPABILITIES = Set.copyOf(EnumSet.of(
        CmiCapability.EXTENSIBLE_SEGMENTS, CmiCapability.NODE_SPECIFIC_TOKEN, CmiCapability.WRITE_THROUGH,
        CmiCapability.MIXED_CONSISTENCY));

    private final NodeChannel channel;
    private final CmiVersion version;
    private final long sessionId;
    private final NodeAddress nodeAddress;
    private final Tracer tracer;
    private final ContextThreads threads;
    private final ContextMappings mappings;
    private final RemoteConnections connections;
    private final SegmentDirectory segments;
    private final EventQueue events = new EventQueue();
    /** Caches of this context's imports (docs/cache.md), shared by its threads. */
    private final io.softcmi.cmi.internal.cache.ContextCache remoteCache =
        new io.softcmi.cmi.internal.cache.ContextCache("context");
    private final NotificationInboxImpl notifications = new NotificationInboxImpl(this);
    private final io.softcmi.cmi.internal.direct.DirectEndpoints direct =
        new io.softcmi.cmi.internal.direct.DirectEndpoints(new ContextInletHost(this));
    private final NoticeHandler notices;
    private final SegmentCalls segmentCalls;
    private final SharingCalls sharing;
    private final ControlCalls control;
    private final MemoryOrdering memory;
    private volatile boolean clientConsist;
    private volatile Duration reconfTimeout = Duration.ofSeconds(10);

    ContextImpl(NodeChannel channel, CmiVersion version, ControlMessage.HelloReply hello, Tracer tracer) {
        this.channel = channel;
        this.version = version;
        this.sessionId = hello.sessionId();
        this.nodeAddress = HandleCodec.nodeAddress(hello.nodeAddress());
        this.tracer = tracer;
        this.threads = new ContextThreads(this, tracer);
        this.connections = new RemoteConnections(channel, tracer, () -> reconfTimeout.toNanos());
        this.segments = new SegmentDirectory(channel, nodeAddress);
        this.mappings = new ContextMappings(this, channel);
        this.notices = new NoticeHandler(tracer, events, segments, notifications, connections, remoteCache, mappings);
        this.segmentCalls = new SegmentCalls(channel, segments, nodeAddress);
        this.sharing = new SharingCalls(channel, version, segments, mappings);
        this.control = new ControlCalls(channel);
        this.memory = new MemoryOrdering(this, remoteCache);
    }

    void start() {
        channel.listen(notices::onNotice, this::onConnectionClosed);
        remoteCache.reportTo(channel::offerOneWay); // figures for cmiadm caches, never waiting for the socket
    }

    // ---- thread association ----

    void bind(ThreadState ts) {
        threads.bind(ts);
    }

    @Override
    public void iniTh() {
        threads.join();
    }

    @Override
    public void fini() {
        threads.detach();
        forgetEnabledThread();
        if (threads.leave()) {
            end();
        }
    }

    @Override
    public void close() {
        fini();
    }

    /** Ends the context: unmaps everything and closes the session (the node applies lifetime rules). */
    private void end() {
        boolean cleanEnd = true;
        try {
            remoteCache.close();
        } catch (RuntimeException e) {
            cleanEnd = false;
            tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "cached stores not written back: " + e.getMessage());
        }
        mappings.unmapAll();
        direct.close();
        connections.closeAll();
        notifications.close();
        if (cleanEnd) {
            try {
                channel.sendOneWay(new ControlMessage.Goodbye()); // fini, not a death: nothing in flux
            } catch (RuntimeException e) {
                tracer.trace(TraceFacility.INI, TraceLevel.WARNING, "could not say goodbye to the node: " + e.getMessage());
            }
        }
        channel.close();
        CmiRuntime.contextEnded(this);
    }

    private void onConnectionClosed() {
        if (!threads.ended()) {
            tracer.trace(TraceFacility.INI, TraceLevel.ERROR, "connection to the CMI node was lost");
        }
    }

    // ---- notification extension ----

    /** @return this context's notification inbox */
    NotificationInboxImpl notifications() {
        return notifications;
    }

    /** This context sent a notification: its reader may poll for the answer ({@link NodeChannel#expectNotice}). */
    void expectNotice() {
        channel.expectNotice();
    }

    /** Sends a one-way control message (a local notification). */
    void sendOneWay(ControlMessage message) {
        channel.sendOneWay(message);
    }

    /**
     * Associates the calling thread (the inbox's handler thread) with this context and enables
     * remote access on it, without counting it among the {@code ini_th} threads.
     */
    void bindHandlerThread() {
        ThreadState ts = ThreadState.current();
        ts.context = this;
        ts.enabled = true;
    }

    /**
     * @param proxyId a proxy's id
     * @return whether the node declared its home dead (it gives SINVAL)
     */
    boolean homeIsDown(long proxyId) {
        return connections.isDown(proxyId);
    }

    /** The data connection to a home node (see {@link RemoteConnections#get}). */
    RemoteConnection connection(NodeAddressImpl home, long segmentId, long offset) {
        return connections.get(home, segmentId, offset);
    }

    /** The data connection to a home node if one is open (see {@link RemoteConnections#getIfOpen}), or null. */
    RemoteConnection openConnection(NodeAddressImpl home) {
        return connections.getIfOpen(home);
    }

    /** @return this context's caches of imported segments */
    io.softcmi.cmi.internal.cache.ContextCache remoteCache() {
        return remoteCache;
    }

    /** The cache size of an import ({@code CMI_CTL_CACHE_RSEG_GET} without the tracing). */
    long cacheBytes(SegmentImpl proxy) {
        return channel.call(new ControlMessage.CacheRsegGet(proxy.id()), LongValue.class).value();
    }

    /** A background write-back failed: {@code CMI_EVENT_STORE_FAILURE} with the lines' offsets. */
    void storesLost(SegmentImpl segment, long[] offsets) {
        tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, offsets.length + " cached lines of " + segment + " were lost");
        events.add(new io.softcmi.cmi.StoreFailure(segment, java.util.Arrays.stream(offsets).boxed().toList()));
    }

    // ---- direct delivery (docs/notifications.md, "Direct delivery") ----

    /** @return this context's direct delivery: its inlets and routes */
    io.softcmi.cmi.internal.direct.DirectEndpoints directEndpoints() {
        return direct;
    }

    /** @return whether this context speaks plain TCP to other nodes (asks its node the first time) */
    boolean plainTcp() {
        return connections.plainTcp();
    }

    /** Logs a warning of the data path in this context's trace. */
    void warn(String message) {
        tracer.trace(TraceFacility.MEM, TraceLevel.WARNING, message);
    }

    /** @return the deadline of a remote call starting now: the reconfiguration timeout from now */
    long remoteDeadline() {
        return connections.deadline();
    }

    // ---- context attributes ----

    @Override public CmiVersion version() { return version; }
    @Override public int vendorId() { return CmiRuntime.VENDOR_ID; }
    @Override public int deviceId() { return CmiRuntime.DEVICE_ID; }
    @Override public NodeAddress nodeAddress() { return nodeAddress; }
    @Override public Set<CmiCapability> capabilities() { return CAPABILITIES; }

    long sessionId() {
        return sessionId;
    }

    // ---- segments ----

    private SegmentImpl own(CmiSegment seg) {
        return segments.own(seg);
    }

    @Override
    public CmiSegment segGet(long size, Set<SegFlag> flags) {
        threads.enter(TraceFacility.SEG, "seg_get " + size + " " + flags);
        return segmentCalls.segGet(size, flags, clientConsist);
    }

    @Override
    public CmiSegment segFromId(long id) {
        threads.enter(TraceFacility.SEG, "seg_from_id", id);
        return segments.lookup(id);
    }

    @Override
    public CmiMapping segAt(CmiSegment seg, Set<AttachFlag> flags) {
        threads.enter(TraceFacility.SEG, "seg_at " + seg + " " + flags);
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        return mappings.attach(s, Errors.checkNotNull(flags, "flags").contains(AttachFlag.READ));
    }

    @Override
    public void segDt(CmiMapping mapping) {
        threads.enter(TraceFacility.SEG, "seg_dt", mapping);
        mappings.detach(mapping);
    }

    @Override
    public RemoteSegmentHandle segExp(CmiSegment seg, Set<ExportAttr> attrs) {
        threads.enter(TraceFacility.SEG, "seg_exp " + seg + " " + attrs);
        return sharing.segExp(seg, attrs);
    }

    @Override
    public void rsegDel(RemoteSegmentHandle rseg) {
        threads.enter(TraceFacility.SEG, "rseg_del");
        sharing.rsegDel(rseg);
    }

    @Override
    public CmiSegment segImp(RemoteSegmentHandle rseg) {
        threads.enter(TraceFacility.SEG, "seg_imp");
        return sharing.segImp(rseg);
    }

    @Override
    public void segRemove(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_RM)", seg);
        channel.call(new ControlMessage.SegRemove(own(Errors.checkNotNull(seg, "segment")).id()), Ok.class);
    }

    @Override
    public void segSetToken(CmiSegment imported, CmiToken token) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_TOKEN)", imported);
        sharing.segSetToken(imported, token);
    }

    @Override
    public SegStatus segStatus(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_STATUS)", seg);
        return segmentCalls.segStatus(seg);
    }

    @Override
    public Optional<SegRange> segCheck(CmiSegment seg, long offset, long length) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_CHECK)", seg);
        return segmentCalls.segCheck(seg, offset, length);
    }

    @Override
    public void segRecover(CmiSegment seg, long offset, long length) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_RECO)", seg);
        segmentCalls.segRecover(seg, offset, length);
        // The node's notice of the new ranges may come after its reply: this process's attaches
        // see the range consistent as soon as the call returns.
        mappings.recovered(seg.id(), offset, offset + length);
    }

    @Override
    public void segBreak(CmiSegment seg, long breakSize) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_BRK) " + seg + " " + breakSize);
        segmentCalls.segBreak(seg, breakSize);
    }

    @Override
    public SegInfo segInfo(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_INFO)", seg);
        return segmentCalls.segInfo(seg);
    }

    // ---- tokens (remote access: see the cross-node capability) ----

    @Override
    public CmiToken tokNew(CmiSegment seg, NodeAddress node, Set<Access> access) {
        threads.enter(TraceFacility.TOK, "tok_new", seg);
        return sharing.newToken(seg, node, access, 0, 0);
    }

    @Override
    public CmiToken tokNewRange(CmiSegment seg, long offset, long size, NodeAddress node, Set<Access> access) {
        threads.enter(TraceFacility.TOK, "tok_newva", seg);
        return sharing.tokNewRange(seg, offset, size, node, access);
    }

    @Override
    public void tokDel(CmiToken token) {
        threads.enter(TraceFacility.TOK, "tok_del");
        sharing.tokDel(token);
    }

    // ---- attributes ----

    @Override
    public long attrRsegSize(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_RSEG_SIZE)");
        return segmentCalls.attrRsegSize(seg);
    }

    @Override
    public long attrTokenSize(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_TOKEN_SIZE)");
        return segmentCalls.attrTokenSize(seg);
    }

    @Override
    public long attrNodeAddrSize() {
        threads.enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_NODEADDR_SIZE)");
        return nodeAddress.toBytes().length;
    }

    // ---- cmi_ctl ----

    @Override
    public CmiInfo ctlInfo() {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_INFO)");
        return control.info();
    }

    @Override
    public void ctlCacheRsegSet(CmiSegment segOrAll, long bytes) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CACHE_RSEG_SET)");
        Errors.checkNotNegative(bytes, "cache size");
        long id = Errors.checkNotNull(segOrAll, "segment") == CmiSegment.ALL ? -1 : own(segOrAll).id();
        channel.call(new ControlMessage.CacheRsegSet(id, bytes), Ok.class);
        mappings.setCacheCapacity(id, bytes);
    }

    @Override
    public long ctlCacheRsegGet(CmiSegment seg) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CACHE_RSEG_GET)");
        if (Errors.checkNotNull(seg, "segment") == CmiSegment.ALL) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_ALL cannot be used to query the cache size");
        }
        return channel.call(new ControlMessage.CacheRsegGet(own(seg).id()), LongValue.class).value();
    }

    /** The longest {@code CMI_CTL_RECONF_TOUT}: a day (every remote wait adds it to {@code System.nanoTime()}). */
    static final Duration MAX_RECONF_TIMEOUT = Duration.ofDays(1);

    @Override
    public void ctlReconfTimeout(Duration timeout) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_RECONF_TOUT)");
        if (Errors.checkNotNull(timeout, "timeout").isNegative() || timeout.isZero()
                || timeout.compareTo(MAX_RECONF_TIMEOUT) > 0) {
            throw Errors.fail(CmiError.INVAL, "reconfiguration timeout must be positive and at most "
                + MAX_RECONF_TIMEOUT + ": " + timeout);
        }
        reconfTimeout = timeout;
    }

    Duration reconfTimeout() {
        return reconfTimeout;
    }

    @Override
    public void ctlClientConsist() {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CLIENT_CONSIST)");
        clientConsist = true;
    }

    @Override
    public void ctlNodeCmapGet(long requestId) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_NODE_CMAP_GET)", requestId);
        control.nodeCmapGet(requestId);
    }

    @Override
    public Reservation ctlMemReserve(long bytes) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE)", bytes);
        return control.memReserve(bytes);
    }

    @Override
    public void ctlMemReserveDel() {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE_DEL)");
        channel.call(new ControlMessage.MemReserveDelete(), Ok.class);
    }

    @Override
    public void ctlMemReserveSet(long key) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE_SET)", key);
        channel.call(new ControlMessage.MemReserveSet(key), Ok.class);
    }

    @Override
    public int[] ctlNodeAddrCmp(NodeAddress node, List<NodeAddress> candidates) {
        threads.enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_NODE_ADDR_CMP)");
        return ControlCalls.nodeAddrCmp(node, candidates);
    }

    // ---- memory operations ----

    @Override
    public void enable(boolean on) {
        ThreadState ts = threads.enter(TraceFacility.MEM, "cmi_enb", on);
        ts.enabled = on;
        if (!on) {
            forgetEnabledThread();
        }
    }

    /** The calling thread's access epoch closed: local attaches check it afresh, imports forget its line hint. */
    private void forgetEnabledThread() {
        mappings.forgetEnabled(Thread.currentThread());
    }

    @Override
    public long atmCas(CmiMapping m, long offset, long cmpval, long swpval) {
        threads.checkFast();
        return memory.atmCas(m, offset, cmpval, swpval);
    }

    @Override
    public void cflush(List<CmiAddress> addresses) {
        threads.enter(TraceFacility.MEM, "cflush");
        memory.cflush(addresses);
    }

    @Override
    public void mb() {
        threads.checkFast();
        memory.mb();
    }

    @Override
    public void rmb() {
        threads.checkFast();
        memory.rmb();
    }

    @Override
    public void wmb() {
        threads.checkFast();
        memory.wmb();
    }

    @Override
    public FlushEpoch openFb() {
        return memory.openFb(threads.enter(TraceFacility.MEM, "open_fb"));
    }

    @Override
    public void flushFb(FlushEpoch epoch) {
        memory.flushFb(threads.enter(TraceFacility.MEM, "flush_fb"), epoch);
    }

    @Override
    public void closeFb(FlushEpoch epoch) {
        memory.closeFb(threads.enter(TraceFacility.MEM, "close_fb"), epoch);
    }

    // ---- events ----

    @Override
    public CmiEvent evtGet() {
        threads.enter(TraceFacility.EVT, "evt_get");
        return events.poll();
    }

    @Override
    public CmiEvent evtGet(Duration timeout) {
        threads.enter(TraceFacility.EVT, "evt_get(timeout)");
        Errors.checkNotNull(timeout, "timeout");
        try {
            return events.poll(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void evtRet(CmiEvent event, EventReturn status) {
        threads.enter(TraceFacility.EVT, "evt_ret", status);
        Errors.checkNotNull(status, "status");
        events.giveBack(event);
        if (status == EventReturn.ERROR) {
            tracer.trace(TraceFacility.EVT, TraceLevel.WARNING, "client failed to handle " + event);
        }
    }

    @Override
    public String toString() {
        return "CMI context " + sessionId + " on " + nodeAddress + " (v" + version + ")";
    }
}
