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
import io.softcmi.cmi.SegState;
import io.softcmi.cmi.SegStatus;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Attached;
import io.softcmi.wire.ControlMessage.LongValue;
import io.softcmi.wire.ControlMessage.Ok;
import io.softcmi.wire.ControlMessage.SegmentReply;
import io.softcmi.wire.SegmentDescriptor;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A CMI context ({@code cmi_ctxt}): one process's session with its node. Control calls go to the
 * node over {@link NodeChannel}; loads and stores of local segments go straight to the mapping.
 *
 * <p>Thread association ({@code ini_th}/{@code fini}) is per thread and checked on every call;
 * when the last associated thread calls {@code fini}, the context ends: its mappings are unmapped
 * and its connection closed, which the node treats exactly like the process exiting.
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
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Map<CmiMapping, Boolean> mappings = new ConcurrentHashMap<>();
    /** The newest token of each proxy, by proxy id (see {@link #updateToken}). */
    private final Map<Long, TokenImpl> latestTokens = new ConcurrentHashMap<>();
    /** Ranges in flux of local segments, as the node last announced them (for attaches made later). */
    private final Map<Long, long[]> fluxBySegment = new ConcurrentHashMap<>();
    private final RemoteConnections connections;
    private final SegmentDirectory segments;
    private final EventQueue events = new EventQueue();
    /** Caches of this context's imports (docs/cache.md), shared by its threads. */
    private final io.softcmi.cmi.internal.cache.ContextCache remoteCache =
        new io.softcmi.cmi.internal.cache.ContextCache("context");
    private final NotificationInboxImpl notifications = new NotificationInboxImpl(this);
    private final Object lifecycle = new Object();
    /** The last thread that passed the association check; a cache for the data-path calls. */
    private Thread lastCheckedThread;
    private volatile boolean clientConsist;
    private volatile Duration reconfTimeout = Duration.ofSeconds(10);
    private volatile boolean closed;

    ContextImpl(NodeChannel channel, CmiVersion version, ControlMessage.HelloReply hello, Tracer tracer) {
        this.channel = channel;
        this.version = version;
        this.sessionId = hello.sessionId();
        this.nodeAddress = HandleCodec.nodeAddress(hello.nodeAddress());
        this.tracer = tracer;
        this.connections = new RemoteConnections(channel, tracer, () -> reconfTimeout.toNanos());
        this.segments = new SegmentDirectory(channel, nodeAddress);
    }

    void start() {
        channel.listen(this::onNotice, this::onConnectionClosed);
        remoteCache.reportTo(channel::offerOneWay); // figures for cmiadm caches, never waiting for the socket
    }

    // ---- thread association ----

    void bind(ThreadState ts) {
        threads.add(Thread.currentThread());
        ts.context = this;
    }

    /** Checks the calling thread for a control call and clears its last error. */
    private ThreadState enter(TraceFacility facility, String call) {
        ThreadState ts = ThreadState.current();
        if (ts.context != this) {
            throw Errors.fail(CmiError.INIT, "calling thread is not associated with this context (" + call + ")");
        }
        if (closed) {
            throw Errors.fail(CmiError.INVAL, "context is finalized (" + call + ")");
        }
        ts.lastError = null;
        tracer.trace(facility, TraceLevel.DEBUG, call);
        return ts;
    }

    /** The association check for data-path calls ({@code atm_cas}, barriers): no ThreadLocal when cached. */
    private void checkThreadFast() {
        Thread t = Thread.currentThread();
        if (t != lastCheckedThread) {
            ThreadState ts = ThreadState.current();
            if (ts.context != this) {
                throw Errors.fail(CmiError.INIT, "calling thread is not associated with this context");
            }
            lastCheckedThread = t;
        }
    }

    @Override
    public void iniTh() {
        ThreadState ts = ThreadState.current();
        if (ts.context != null) {
            throw Errors.fail(CmiError.BOUND, "calling thread is already associated with a context");
        }
        synchronized (lifecycle) {
            if (closed) {
                throw Errors.fail(CmiError.INVAL, "context is finalized");
            }
            bind(ts);
        }
        ts.lastError = null;
        tracer.trace(TraceFacility.INI, TraceLevel.INFO, "ini_th " + Thread.currentThread().getName());
    }

    @Override
    public void fini() {
        ThreadState ts = ThreadState.current();
        if (ts.context != this) {
            throw Errors.fail(ts.context == null ? CmiError.INIT : CmiError.INVAL,
                "calling thread is not associated with this context (fini)");
        }
        Thread me = Thread.currentThread();
        if (lastCheckedThread == me) {
            lastCheckedThread = null;
        }
        ts.context = null;
        ts.enabled = false;
        forgetEnabledThread();
        ts.epoch = null;
        ts.lastError = null;
        tracer.trace(TraceFacility.INI, TraceLevel.INFO, "fini " + me.getName());
        synchronized (lifecycle) {
            threads.remove(me);
            if (threads.isEmpty()) {
                end();
            }
        }
    }

    @Override
    public void close() {
        fini();
    }

    /** Ends the context: unmaps everything and closes the session (the node applies lifetime rules). */
    private void end() {
        closed = true;
        boolean cleanEnd = true;
        try {
            remoteCache.close();
        } catch (RuntimeException e) {
            cleanEnd = false;
            tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "cached stores not written back: " + e.getMessage());
        }
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm) {
                lm.unmap();
            } else if (m instanceof RemoteMapping rm) {
                rm.detach();
            }
        }
        mappings.clear();
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
        if (!closed) {
            tracer.trace(TraceFacility.INI, TraceLevel.ERROR, "connection to the CMI node was lost");
        }
    }

    private void onNotice(ControlMessage notice) {
        switch (notice) {
            case ControlMessage.EventNotice n -> {
                try {
                    CmiEvent e = EventQueue.fromNotice(n, segments::forEvent);
                    tracer.trace(TraceFacility.EVT, TraceLevel.INFO, "event " + e.type().specName());
                    events.add(e);
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.EVT, TraceLevel.ERROR, "dropped malformed event: " + e.getMessage());
                }
            }
            case ControlMessage.TokenNotice t -> {
                try {
                    updateToken(t.segId(), (TokenImpl) HandleCodec.token(t.token()));
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.TOK, TraceLevel.ERROR, "dropped malformed token notice");
                }
            }
            case ControlMessage.NotificationNotice n -> notifications.deliver(new io.softcmi.cmi.notify.Notification(
                segments.forEvent(n.segId()), n.offset(), n.value(), senderNode(n.sender())));
            case ControlMessage.HomeDownNotice d -> {
                try {
                    NodeAddressImpl home = (NodeAddressImpl) HandleCodec.nodeAddress(d.node());
                    connections.homeDown(home, segments.proxiesOf(home));
                    tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "home node " + HandleCodec.nodeAddress(d.node())
                        + " was declared dead: its segments give SINVAL");
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "dropped malformed home-down notice");
                }
            }
            case ControlMessage.FluxNotice f -> fluxChanged(f.segId(), f.ranges());
            case ControlMessage.NodeShutdown s ->
                tracer.trace(TraceFacility.INI, TraceLevel.ERROR, "CMI node is shutting down: " + s.reason());
            case ControlMessage.ErrorReply e when CachedImports.refusesCacheReports(e) -> {
                remoteCache.reportTo(null);
                tracer.trace(TraceFacility.MEM, TraceLevel.INFO, "the node does not take cache figures; not sending them");
            }
            default -> tracer.trace(TraceFacility.INI, TraceLevel.WARNING, "unexpected notice " + notice.type());
        }
    }

    /** The node announced which ranges of a local segment are in flux: every attach of it checks them. */
    private void fluxChanged(long segmentId, List<Long> ranges) {
        long[] pairs = ranges.stream().mapToLong(Long::longValue).toArray();
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm && lm.segmentId == segmentId) {
                lm.setFlux(pairs);
            }
        }
        if (pairs.length == 0) {
            fluxBySegment.remove(segmentId);
        } else {
            fluxBySegment.put(segmentId, pairs);
        }
    }

    /**
     * The sender of a notification: its node's address, or if the home sent only the node id, an
     * address with that id and no host or port.
     */
    private static NodeAddress senderNode(byte[] sender) {
        try {
            return sender.length == NodeAddressImpl.ID_LENGTH ? new NodeAddressImpl(sender, "", 0)
                : HandleCodec.nodeAddress(sender);
        } catch (RuntimeException e) {
            return NodeAddress.ANY;
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
     * Records the newest token of a proxy and sets it on its attaches. A notice may arrive
     * between an attach's reply and the attach's registration; the newest token is kept by proxy
     * so {@link #registerRemote} picks it up (notices are processed in order, so this is never
     * older than a token in a later reply).
     */
    private synchronized void updateToken(long proxyId, TokenImpl token) {
        latestTokens.put(proxyId, token);
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof RemoteMapping rm && rm.segment.id() == proxyId) {
                rm.setToken(token);
            }
        }
    }

    /** Registers a new attach of a proxy, with the newest token a notice may have brought meanwhile. */
    private synchronized void registerRemote(RemoteMapping rm) {
        mappings.put(rm, Boolean.TRUE);
        TokenImpl newest = latestTokens.get(rm.segment.id());
        if (newest != null) {
            rm.setToken(newest);
        }
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

    private SegmentDescriptor describe(long id) {
        return segments.describe(id);
    }

    @Override
    public CmiSegment segGet(long size, Set<SegFlag> flags) {
        enter(TraceFacility.SEG, "seg_get " + size + " " + flags);
        Errors.checkNotNull(flags, "flags");
        EnumSet<SegFlag> f = flags.isEmpty() ? EnumSet.noneOf(SegFlag.class) : EnumSet.copyOf(flags);
        if (f.contains(SegFlag.CLIENT_CONSIST) && f.contains(SegFlag.CLIENT_INCONSIST)) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_CLIENT_CONSIST and CMI_SEG_CLIENT_INCONSIST exclude each other");
        }
        if (!f.contains(SegFlag.CLIENT_INCONSIST) && (clientConsist || f.contains(SegFlag.CLIENT_CONSIST))) {
            f.add(SegFlag.CLIENT_CONSIST);
        } else {
            f.add(SegFlag.CLIENT_INCONSIST);
        }
        SegmentReply r = channel.call(new ControlMessage.SegGet(size, FlagBits.toBits(f)), SegmentReply.class);
        return segments.remember(r.segment());
    }

    @Override
    public CmiSegment segFromId(long id) {
        enter(TraceFacility.SEG, "seg_from_id " + id);
        return segments.lookup(id);
    }

    @Override
    public CmiMapping segAt(CmiSegment seg, Set<AttachFlag> flags) {
        enter(TraceFacility.SEG, "seg_at " + seg + " " + flags);
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        boolean readOnly = Errors.checkNotNull(flags, "flags").contains(AttachFlag.READ);
        if (s.imported()) {
            RemoteMapping rm = SegmentMapper.mapRemote(this, s, channel.call(new ControlMessage.SegAttach(s.id(), readOnly),
                ControlMessage.ProxyAttached.class), readOnly);
            registerRemote(rm);
            return rm;
        }
        Attached a = channel.call(new ControlMessage.SegAttach(s.id(), readOnly), Attached.class);
        LocalMapping m;
        try {
            m = SegmentMapper.map(this, s, a.attachId(), a.segment(), readOnly);
        } catch (RuntimeException e) {
            channel.call(new ControlMessage.SegDetach(a.attachId()), Ok.class);
            throw e;
        }
        mappings.put(m, Boolean.TRUE);
        long[] inFlux = fluxBySegment.get(s.id());
        if (inFlux != null && m instanceof LocalMapping lm) {
            lm.setFlux(inFlux);
        }
        return m;
    }

    @Override
    public void segDt(CmiMapping mapping) {
        enter(TraceFacility.SEG, "seg_dt " + mapping);
        if (mapping == null || mappings.remove(mapping) == null) {
            throw Errors.fail(CmiError.INVAL, "not an attached mapping of this context: " + mapping);
        }
        if (mapping instanceof RemoteMapping rm) {
            rm.detach();
            channel.call(new ControlMessage.SegDetach(rm.attachId), Ok.class);
            return;
        }
        LocalMapping m = (LocalMapping) mapping;
        m.unmap();
        channel.call(new ControlMessage.SegDetach(m.attachId), Ok.class);
    }

    @Override
    public RemoteSegmentHandle segExp(CmiSegment seg, Set<ExportAttr> attrs) {
        enter(TraceFacility.SEG, "seg_exp " + seg + " " + attrs);
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        if (s.imported()) {
            throw Errors.fail(CmiError.INVAL, "an imported segment cannot be exported: " + s);
        }
        int bits = FlagBits.toBits(Errors.checkNotNull(attrs, "attributes"));
        byte[] handle = channel.call(new ControlMessage.SegExport(s.id(), bits), ControlMessage.BytesValue.class).value();
        return HandleCodec.remoteSegmentHandle(handle);
    }

    @Override
    public void rsegDel(RemoteSegmentHandle rseg) {
        enter(TraceFacility.SEG, "rseg_del");
        if (!(Errors.checkNotNull(rseg, "remote segment handle") instanceof RemoteSegmentHandleImpl h)) {
            throw Errors.fail(CmiError.INVAL, "not a remote segment handle of this library");
        }
        channel.call(new ControlMessage.RsegDelete(h.toBytes()), Ok.class);
    }

    @Override
    public CmiSegment segImp(RemoteSegmentHandle rseg) {
        enter(TraceFacility.SEG, "seg_imp");
        if (!(Errors.checkNotNull(rseg, "remote segment handle") instanceof RemoteSegmentHandleImpl h)) {
            throw Errors.fail(CmiError.INVAL, "not a remote segment handle of this library");
        }
        return segments.remember(channel.call(new ControlMessage.SegImport(h.toBytes()), ControlMessage.ProxyReply.class));
    }

    @Override
    public void segRemove(CmiSegment seg) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_RM) " + seg);
        channel.call(new ControlMessage.SegRemove(own(Errors.checkNotNull(seg, "segment")).id()), Ok.class);
    }

    @Override
    public void segSetToken(CmiSegment imported, CmiToken token) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_TOKEN) " + imported);
        SegmentImpl s = own(Errors.checkNotNull(imported, "segment"));
        Errors.checkNotNull(token, "token");
        if (!s.imported()) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_TOKEN applies to imported segments only: " + s);
        }
        if (!(token instanceof TokenImpl t)) {
            throw Errors.fail(CmiError.INVAL, "not a token of this library");
        }
        channel.call(new ControlMessage.SegSetToken(s.id(), t.toBytes()), Ok.class);
        updateToken(s.id(), t);
    }

    @Override
    public SegStatus segStatus(CmiSegment seg) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_STATUS) " + seg);
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        SegmentDescriptor d = s.imported()
            ? channel.call(new ControlMessage.ImportStatus(s.id()), ControlMessage.SegmentReply.class).segment()
            : describe(s.id());
        return new SegStatus(d.id(), d.size(), d.brk(), FlagBits.fromBits(d.flags(), SegFlag.class),
            SegState.values()[Math.clamp(d.state(), 0, SegState.values().length - 1)], d.attachCount(), d.creatorPid(),
            d.exported(), d.imported(), s.home());
    }

    @Override
    public Optional<SegRange> segCheck(CmiSegment seg, long offset, long length) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_CHECK) " + seg);
        ControlMessage.RangeReply r = channel.call(
            new ControlMessage.SegRecovery(own(Errors.checkNotNull(seg, "segment")).id(), offset, length, false),
            ControlMessage.RangeReply.class);
        return r.found() ? Optional.of(new SegRange(r.offset(), r.size())) : Optional.empty();
    }

    @Override
    public void segRecover(CmiSegment seg, long offset, long length) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_RECO) " + seg);
        channel.call(new ControlMessage.SegRecovery(own(Errors.checkNotNull(seg, "segment")).id(), offset, length, true),
            Ok.class);
    }

    @Override
    public void segBreak(CmiSegment seg, long breakSize) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_BRK) " + seg + " " + breakSize);
        channel.call(new ControlMessage.SegBreak(own(Errors.checkNotNull(seg, "segment")).id(), breakSize), Ok.class);
    }

    @Override
    public SegInfo segInfo(CmiSegment seg) {
        enter(TraceFacility.CTRL, "seg_ctl(CMI_SEG_INFO) " + seg);
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        SegmentDescriptor d = describe(s.id());
        Set<SegFlag> flags = FlagBits.fromBits(d.flags(), SegFlag.class);
        long align = flags.contains(SegFlag.LARGE_PAGES) ? CmiRuntime.LARGE_PAGE : CmiRuntime.PAGE;
        return new SegInfo(align, d.size(), flags, CmiRuntime.PAGE, CmiRuntime.PAGE);
    }

    // ---- tokens (remote access: see the cross-node capability) ----

    @Override
    public CmiToken tokNew(CmiSegment seg, NodeAddress node, Set<Access> access) {
        enter(TraceFacility.TOK, "tok_new " + seg);
        return newToken(seg, node, access, 0, 0);
    }

    private CmiToken newToken(CmiSegment seg, NodeAddress node, Set<Access> access, long offset, long size) {
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        if (s.imported()) {
            throw Errors.fail(CmiError.INVAL, "tokens are made at the home node, not for an import: " + s);
        }
        if (!(Errors.checkNotNull(node, "node address") instanceof NodeAddressImpl n)) {
            throw Errors.fail(CmiError.INVAL, "not a node address of this library: " + node);
        }
        if (Errors.checkNotNull(access, "access").isEmpty()) {
            throw Errors.fail(CmiError.INVAL, "a token needs one or more of READ, WRITE, ATOMIC");
        }
        byte[] bytes = channel.call(new ControlMessage.TokNew(s.id(), n.toBytes(), FlagBits.toBits(access), offset, size),
            ControlMessage.BytesValue.class).value();
        return HandleCodec.token(bytes);
    }

    @Override
    public CmiToken tokNewRange(CmiSegment seg, long offset, long size, NodeAddress node, Set<Access> access) {
        enter(TraceFacility.TOK, "tok_newva " + seg);
        if (version.minor() < 1) {
            throw Errors.fail(CmiError.NOTSUPP, "tok_newva needs CMI API 1.1; this context negotiated " + version);
        }
        if (size <= 0 || offset < 0) {
            throw Errors.fail(CmiError.INVAL, "token range must be a positive size at a non-negative offset: " + offset
                + "+" + size);
        }
        return newToken(seg, node, access, offset, size);
    }

    @Override
    public void tokDel(CmiToken token) {
        enter(TraceFacility.TOK, "tok_del");
        if (!(Errors.checkNotNull(token, "token") instanceof TokenImpl t)) {
            throw Errors.fail(CmiError.INVAL, "not a token of this library");
        }
        channel.call(new ControlMessage.TokDel(t.toBytes()), Ok.class);
    }

    // ---- attributes ----

    @Override
    public long attrRsegSize(CmiSegment seg) {
        enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_RSEG_SIZE)");
        SegmentImpl s = own(Errors.checkNotNull(seg, "segment"));
        describe(s.id()); // INVAL once the segment is gone
        return new RemoteSegmentHandleImpl((NodeAddressImpl) nodeAddress, s.id(), 1, 1, s.size(), 0, false)
            .toBytes().length;
    }

    @Override
    public long attrTokenSize(CmiSegment seg) {
        enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_TOKEN_SIZE)");
        describe(own(Errors.checkNotNull(seg, "segment")).id()); // INVAL once the segment is gone
        return HandleCodec.tokenSize();
    }

    @Override
    public long attrNodeAddrSize() {
        enter(TraceFacility.CTRL, "attr_get(CMI_ATTR_NODEADDR_SIZE)");
        return nodeAddress.toBytes().length;
    }

    // ---- cmi_ctl ----

    @Override
    public CmiInfo ctlInfo() {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_INFO)");
        long[] v = channel.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class).values();
        if (v.length < 16) {
            throw Errors.fail(CmiError.INVAL, "node sent " + v.length + " info fields");
        }
        // cache_line_sz: the line of cached imports when they are on (a multiple of the node's unit).
        long line = CachedImports.ENABLED ? Math.max(v[10], CachedImports.LINE_SIZE) : v[10];
        return new CmiInfo(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], line, v[11], v[12], v[13],
            v[14], v[15]);
    }

    @Override
    public void ctlCacheRsegSet(CmiSegment segOrAll, long bytes) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CACHE_RSEG_SET)");
        Errors.checkNotNegative(bytes, "cache size");
        long id = Errors.checkNotNull(segOrAll, "segment") == CmiSegment.ALL ? -1 : own(segOrAll).id();
        channel.call(new ControlMessage.CacheRsegSet(id, bytes), Ok.class);
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof RemoteMapping rm && rm.cache != null && rm.segment.id() == id) {
                rm.cache.setCapacity(bytes); // live caches of this import shrink at their next miss
            }
        }
    }

    @Override
    public long ctlCacheRsegGet(CmiSegment seg) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CACHE_RSEG_GET)");
        if (Errors.checkNotNull(seg, "segment") == CmiSegment.ALL) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_ALL cannot be used to query the cache size");
        }
        return channel.call(new ControlMessage.CacheRsegGet(own(seg).id()), LongValue.class).value();
    }

    @Override
    public void ctlReconfTimeout(Duration timeout) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_RECONF_TOUT)");
        if (Errors.checkNotNull(timeout, "timeout").isNegative() || timeout.isZero()) {
            throw Errors.fail(CmiError.INVAL, "reconfiguration timeout must be positive: " + timeout);
        }
        reconfTimeout = timeout;
    }

    Duration reconfTimeout() {
        return reconfTimeout;
    }

    @Override
    public void ctlClientConsist() {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_CLIENT_CONSIST)");
        clientConsist = true;
    }

    @Override
    public void ctlNodeCmapGet(long requestId) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_NODE_CMAP_GET) " + requestId);
        if (requestId == 0) {
            throw Errors.fail(CmiError.INVAL, "request id 0 is reserved for unsolicited connectivity maps");
        }
        channel.call(new ControlMessage.CmapGet(requestId), Ok.class);
    }

    @Override
    public Reservation ctlMemReserve(long bytes) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE) " + bytes);
        Errors.checkNotNegative(bytes, "reservation size");
        ControlMessage.ReservationReply r = channel.call(new ControlMessage.MemReserve(bytes),
            ControlMessage.ReservationReply.class);
        return new Reservation(r.key(), r.reserved(), r.allocated());
    }

    @Override
    public void ctlMemReserveDel() {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE_DEL)");
        channel.call(new ControlMessage.MemReserveDelete(), Ok.class);
    }

    @Override
    public void ctlMemReserveSet(long key) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_MEM_RESERVE_SET) " + key);
        channel.call(new ControlMessage.MemReserveSet(key), Ok.class);
    }

    @Override
    public int[] ctlNodeAddrCmp(NodeAddress node, List<NodeAddress> candidates) {
        enter(TraceFacility.CTRL, "cmi_ctl(CMI_CTL_NODE_ADDR_CMP)");
        if (!(Errors.checkNotNull(node, "node address") instanceof NodeAddressImpl)) {
            throw Errors.fail(CmiError.INVAL, "not a node address of this library: " + node);
        }
        Errors.checkNotNull(candidates, "candidates");
        int[] matches = new int[candidates.size()];
        int n = 0;
        for (int i = 0; i < candidates.size(); i++) {
            NodeAddress c = candidates.get(i);
            if (!(c instanceof NodeAddressImpl)) {
                throw Errors.fail(CmiError.INVAL, "candidate " + i + " is not a node address: " + c);
            }
            if (c.equals(node)) {
                matches[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(matches, n);
    }

    // ---- memory operations ----

    @Override
    public void enable(boolean on) {
        ThreadState ts = enter(TraceFacility.MEM, "cmi_enb " + on);
        ts.enabled = on;
        if (!on) {
            forgetEnabledThread();
        }
    }

    /** The calling thread's access epoch closed: local attaches check it afresh. */
    private void forgetEnabledThread() {
        Thread me = Thread.currentThread();
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm) {
                lm.forgetEnabled(me);
            } else if (m instanceof RemoteMapping rm) {
                rm.forgetEnabled(me);
            }
        }
    }

    @Override
    public long atmCas(CmiMapping m, long offset, long cmpval, long swpval) {
        checkThreadFast();
        if (remoteCache.active()) {
            // A store barrier and an acquire for cached imports (docs/cache.md): earlier cached
            // stores reach their homes before the CAS, and later loads see what others released.
            CachedImports.release(remoteCache);
            if (m instanceof RemoteMapping rm && rm.context == this) {
                // The acquires of caches at the CAS's home go out right behind the CAS on the
                // same connection: the home serves them after it, and their round trip overlaps.
                RemoteMapping.PendingCas cas = rm.startCas(offset, cmpval, swpval);
                io.softcmi.cmi.internal.cache.ContextCache.EarlyAcquire early = remoteCache.startAcquireOn(rm.home);
                long before = rm.finishCas(cas);
                remoteCache.finishAcquire(early);
                return before;
            }
            long before = atmCasNow(m, offset, cmpval, swpval);
            CachedImports.acquire(remoteCache);
            return before;
        }
        return atmCasNow(m, offset, cmpval, swpval);
    }

    private long atmCasNow(CmiMapping m, long offset, long cmpval, long swpval) {
        // One test for the common case (a writable local attach of this context, aligned word);
        // the slow path below sorts out which error applies otherwise.
        if (m instanceof LocalMapping lm && lm.casOwner == this) {
            try {
                return lm.casUnchecked(offset, cmpval, swpval);
            } catch (IllegalArgumentException misaligned) {
                throw Errors.fail(CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + offset);
            }
        }
        if (m instanceof LocalMapping lm && lm.context == this) {
            return lm.cas(offset, cmpval, swpval);
        }
        if (m instanceof RemoteMapping rm && rm.context == this) {
            return rm.cas(offset, cmpval, swpval);
        }
        throw Errors.fail(CmiError.INVAL, "not a mapping of this context: " + m);
    }

    @Override
    public void cflush(List<CmiAddress> addresses) {
        enter(TraceFacility.MEM, "cflush");
        for (CmiAddress a : Errors.checkNotNull(addresses, "addresses")) {
            boolean ours = a != null && (a.mapping() instanceof LocalMapping m && m.context == this && m.attached()
                || a.mapping() instanceof RemoteMapping r && r.context == this && r.attached());
            if (!ours || a.offset() < 0 || a.offset() >= a.mapping().size()) {
                throw Errors.fail(CmiError.INVAL, "not an address in an attached segment of this context: " + a);
            }
        }
        // Local segments are coherent through the mapping and write-through stores are complete
        // at the home when they return: a fence commits those; cached lines are written back.
        java.lang.invoke.VarHandle.fullFence();
        for (CmiAddress a : addresses) {
            if (a.mapping() instanceof RemoteMapping r) {
                r.cflush(a.offset());
            }
        }
    }

    @Override
    public void mb() {
        checkThreadFast();
        java.lang.invoke.VarHandle.fullFence();
        CachedImports.release(remoteCache);
        CachedImports.acquire(remoteCache);
    }

    @Override
    public void rmb() {
        checkThreadFast();
        java.lang.invoke.VarHandle.acquireFence();
        CachedImports.acquire(remoteCache);
    }

    @Override
    public void wmb() {
        checkThreadFast();
        java.lang.invoke.VarHandle.releaseFence();
        CachedImports.release(remoteCache);
    }

    @Override
    public FlushEpoch openFb() {
        ThreadState ts = enter(TraceFacility.MEM, "open_fb");
        if (ts.epoch != null) {
            throw Errors.fail(CmiError.BOUND, "calling thread already has a flush epoch open");
        }
        ts.epoch = new FlushEpochImpl(this, Thread.currentThread());
        return ts.epoch;
    }

    private FlushEpochImpl ownEpoch(ThreadState ts, FlushEpoch epoch, String call) {
        if (!(epoch instanceof FlushEpochImpl e) || e.context != this || !e.open || e != ts.epoch) {
            throw Errors.fail(CmiError.INVAL, "not the calling thread's open flush epoch (" + call + ")");
        }
        return e;
    }

    @Override
    public void flushFb(FlushEpoch epoch) {
        ThreadState ts = enter(TraceFacility.MEM, "flush_fb");
        ownEpoch(ts, epoch, "flush_fb");
        java.lang.invoke.VarHandle.fullFence();
        CachedImports.releaseThread(remoteCache);
    }

    @Override
    public void closeFb(FlushEpoch epoch) {
        ThreadState ts = enter(TraceFacility.MEM, "close_fb");
        FlushEpochImpl e = ownEpoch(ts, epoch, "close_fb");
        java.lang.invoke.VarHandle.fullFence();
        CachedImports.releaseThread(remoteCache);
        e.open = false;
        ts.epoch = null;
    }

    // ---- events ----

    @Override
    public CmiEvent evtGet() {
        enter(TraceFacility.EVT, "evt_get");
        return events.poll();
    }

    @Override
    public CmiEvent evtGet(Duration timeout) {
        enter(TraceFacility.EVT, "evt_get(timeout)");
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
        enter(TraceFacility.EVT, "evt_ret " + status);
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
