package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.internal.LatencySlice;
import io.softcmi.cmi.internal.PollBudget;
import io.softcmi.cmi.notify.Notification;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reading end of direct delivery in one context (docs/notifications.md, "Direct delivery"):
 * one TCP port and one platform thread that reads every connection between this process and
 * another, those the others opened and those this context's routes opened ({@link InletConnection}
 * per connection, {@link RouteConnection} its writing side), writes their stores into the local
 * attaches of the context's {@link Inlet}s, hands their notifications to the context's inbox and
 * passes the acknowledgements of this context's own frames to its routes.
 * After stores came it polls for up to {@value #MAX_POLL_NANOS} ns before it blocks in the selector,
 * reading the connection of the last traffic directly (one {@code read} per look, a
 * {@code select} every eighth): while stores came within {@value #TRAFFIC_NANOS} ns or its polls
 * have been finding stores (acknowledgements alone do not count: a process that only sends leaves
 * the core to its sending thread), one poller per JVM, and never while this JVM's pollers back off after a
 * preemption ({@link PollBudget#contended()}: every core busy). Unlike the home's loop it does not
 * stop for the runnable count ({@link PollBudget#crowded()}): its peer is the sender's own thread,
 * two threads as in a raw polling ping-pong, and on a 2-core machine running that ping-pong the
 * count is 3 to 4 by itself (measured 2026-11-27: with that rule the thread never polled). The
 * poll ends before the frames are served, so a handler that waits for its own answers may poll.
 *
 * <p>The port is bounded ({@link InletAdmission}): a connection another process opened that does
 * not say HELLO in time is dropped, and at the bound the oldest without a HELLO gives way to a new
 * one, which is refused if every one has.
 */
final class InletServer implements Runnable {
    /** Longest poll after traffic before the thread blocks in its selector. */
    static final long MAX_POLL_NANOS = 200_000;
    /** Traffic this recent keeps the thread polling whatever its hit rate. */
    static final long TRAFFIC_NANOS = 1_000_000;
    private static final System.Logger LOG = System.getLogger("io.softcmi.cmi");
    private final DirectEndpoints endpoints;
    private final InletHost context;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final String host;
    private final int port;
    private final Thread thread;
    private final Map<Integer, Inlet> inlets = new ConcurrentHashMap<>();
    /** Connections this context's routes opened, to be registered by the server's thread. */
    private final java.util.Queue<InletConnection> adopted = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** This end's HELLO payload: its node address and inlet endpoint, each after an {@code int} length. */
    private final ByteBuffer hello;
    private final AtomicInteger ids = new AtomicInteger();
    private final SecureRandom random = new SecureRandom();
    /** The key in every address of this server's inlets, which a connecting process's HELLO proves. */
    private final byte[] serverKey = new byte[InletAddress.KEY_LENGTH];
    private final PollBudget budget = new PollBudget(MAX_POLL_NANOS, false);
    private volatile boolean closed;
    /**
     * When the last stores came ({@link #dataFrames} grew): acknowledgements alone do not count, so
     * that a process that only sends (a stream) leaves the core to its sending thread.
     */
    private long lastTraffic;
    /** Stores (and stores with notifications) served, over every connection (server thread). */
    private long dataFrames;
    /** How long the last blocking select waited before input came, -1 if the last wait did not block. */
    private long blockedFor = -1;
    /** The connection of the last traffic, which the poll loop reads directly; null if none. */
    private SelectionKey lastKey;
    /** Which connections other processes opened the port keeps (server thread). */
    private final InletAdmission admission;
    /** Notifications of stored frames not yet handed to the inbox (server thread only). */
    private final java.util.ArrayDeque<Queued> queued = new java.util.ArrayDeque<>();
    private boolean delivering;

    private InletServer(DirectEndpoints endpoints, InletHost context, String host) throws IOException {
        this.endpoints = endpoints;
        this.context = context;
        this.host = host;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(host, 0));
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            server.close();
            selector.close();
            throw e;
        }
        this.port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        random.nextBytes(serverKey);
        byte[] address = context.nodeAddress();
        byte[] ep = endpoint().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.hello = ByteBuffer.allocate(8 + address.length + ep.length).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(address.length).put(address).putInt(ep.length).put(ep).flip().asReadOnlyBuffer();
        this.admission = new InletAdmission(context, this::drop);
        this.thread = Thread.ofPlatform().daemon().name("softcmi-inlet-" + context.name()).unstarted(this);
    }

    /**
     * @param endpoints the context's direct delivery
     * @param context the serving context
     * @param host the address to listen on (the node's data address)
     * @return a started server
     * @throws IOException if the port cannot be opened
     */
    static InletServer start(DirectEndpoints endpoints, InletHost context, String host) throws IOException {
        InletServer s = new InletServer(endpoints, context, host);
        s.thread.start();
        return s;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** @return a copy of the key every address of this server's inlets carries */
    byte[] serverKey() {
        return serverKey.clone();
    }

    /** @return whether {@code key} is this server's key (compared in constant time) */
    boolean isServerKey(byte[] key) {
        return java.security.MessageDigest.isEqual(serverKey, key);
    }

    /** Opens an inlet on a writable local attach: its memory, its segment, and whether it is still attached. */
    Inlet open(java.lang.foreign.MemorySegment data, io.softcmi.cmi.CmiSegment segment, java.util.function.BooleanSupplier attached) {
        byte[] key = new byte[InletAddress.KEY_LENGTH];
        random.nextBytes(key);
        Inlet inlet = new Inlet(this, ids.incrementAndGet(), key, data, segment, attached);
        inlets.put(inlet.id, inlet);
        return inlet;
    }

    Inlet inlet(int id) {
        return inlets.get(id);
    }

    void remove(Inlet inlet) {
        inlets.remove(inlet.id, inlet);
    }

    /**
     * Before a thread waits for another process: if it is this server's thread (a handler that
     * sends and waits), serves every connection once without blocking, storing and acknowledging
     * what came and queueing its notifications, so that no sender waits for the handler
     * ({@link InletConnection}).
     *
     * @return whether the caller is this server's thread (it must then not block for long: the
     *     caller looks again at least every millisecond)
     */
    boolean serveWhileWaiting() {
        if (Thread.currentThread() != thread) {
            return false;
        }
        registerAdopted(); // a handler's new route waits for an acknowledgement on its own connection
        for (SelectionKey k : selector.keys()) {
            if (k.isValid() && k.attachment() instanceof InletConnection c) {
                try {
                    if (!c.route.backlogged()) {
                        c.serveNested();
                    }
                } catch (IOException | java.nio.channels.CancelledKeyException | InletConnection.ProtocolException e) {
                    drop(k, e);
                    lastKey = lastKey == k ? null : lastKey;
                }
            }
        }
        return true;
    }

    /** @return whether the caller is this server's thread (a handler) */
    boolean onServerThread() {
        return Thread.currentThread() == thread;
    }

    /** @return this end's HELLO payload (read-only; duplicate before reading) */
    ByteBuffer hello() {
        return hello;
    }

    /** Reads a connection this context's route opened (any thread): registered by the server's thread. */
    void adopt(InletConnection c) {
        adopted.add(c);
        selector.wakeup();
    }

    /** The process at the other end of {@code c} said its inlet is at {@code endpoint} (server thread). */
    void peerHello(String endpoint, InletConnection c) {
        endpoints.helloFrom(endpoint, c.route);
    }

    /**
     * The writing side of {@code c} has acknowledgements waiting for room (any thread): the
     * server finishes them when the socket is writable.
     */
    void wantWrite(InletConnection c, boolean want) {
        SelectionKey k = c.key;
        if (k == null || !k.isValid()) {
            return; // registered later with the interest the route reports then
        }
        try {
            if (want) {
                k.interestOpsOr(SelectionKey.OP_WRITE);
                selector.wakeup();
            } else {
                k.interestOpsAnd(~SelectionKey.OP_WRITE);
            }
        } catch (java.nio.channels.CancelledKeyException e) {
            // dropped meanwhile
        }
    }

    /** @return {@code host:port} of this server, as an inlet address names it */
    String endpoint() {
        return host + ":" + port;
    }

    private record Queued(Inlet inlet, long offset, long value, NodeAddress sender) {
    }

    /** Outer serving passes begun ({@link #passBegin}; written by the server thread only). */
    private volatile long passesBegun;
    /** Outer serving passes ended, their stores written and their notifications handed to the inbox. */
    private volatile long passesEnded;
    /** Passes in progress on the server thread: a handler's nested serve is inside an outer one (server thread only). */
    private int passDepth;

    /**
     * A connection's pass over what it read begins (server thread): stores may land until
     * {@link #passEnd}. An inlet that closes reads the count after it closed: a pass begun
     * later sees it closed before any copy, an earlier one is waited for ({@link Inlet#awaitClosed}).
     */
    void passBegin() {
        if (passDepth++ == 0) {
            passesBegun = passesBegun + 1;
        }
    }

    /** The pass ended: its stores are written and its notifications handed to the inbox (server thread). */
    void passEnd() {
        if (--passDepth == 0) {
            passesEnded = passesBegun;
        }
    }

    /** @return outer passes begun so far (any thread) */
    long passesBegun() {
        return passesBegun;
    }

    /**
     * Waits until the outer pass numbered {@code pass} (and every one before it) has ended.
     *
     * @return false at the deadline
     */
    boolean awaitPassesEnded(long pass, long deadline) {
        long park = 1_000;
        while (passesEnded < pass) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(park, left));
            park = Math.min(park * 2, 1_000_000);
        }
        return true;
    }

    /** Queues a notification of a stored frame (server thread). */
    void queue(Inlet inlet, long offset, long value, NodeAddress sender) {
        queued.add(new Queued(inlet, offset, value, sender));
    }

    /**
     * Hands the queued notifications to the context's inbox, in order (server thread); inside a
     * delivery (a handler that waits and lets the server serve meanwhile) it does nothing: the
     * outer delivery goes on with them when the handler returns.
     */
    void deliverQueued() {
        if (delivering) {
            return;
        }
        delivering = true;
        try {
            Queued q;
            while ((q = queued.poll()) != null) {
                context.deliver(new Notification(q.inlet().segment, q.offset(), q.value(), q.sender()));
            }
        } finally {
            delivering = false;
        }
    }

    /** Stops serving and closes every connection (the context ends). */
    void close() {
        closed = true;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        LatencySlice.applyToCurrentThread();
        context.bindHandlerThread();
        try {
            while (!closed) {
                registerAdopted();
                admission.dropLateHellos(System.nanoTime());
                int ready = selector.selectNow();
                if (ready == 0) {
                    ready = pollThenBlock();
                }
                if (ready > 0) {
                    serveReady();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.log(System.Logger.Level.WARNING, "direct delivery stopped: " + e);
            }
        } finally {
            closeAll();
        }
    }

    private int pollThenBlock() throws IOException {
        long now = System.nanoTime();
        long limit = pollLimit(now);
        SelectionKey polled = null;
        int read = 0;
        if (limit > 0 && PollBudget.startPolling()) {
            try {
                long end = now + limit;
                long previous = now;
                SelectionKey last = lastKey;
                InletConnection c = last != null && last.isValid() && last.attachment() instanceof InletConnection x && !x.route.backlogged() ? x : null;
                for (int i = 0; !closed && adopted.isEmpty(); i++) {
                    if (c != null && (i & 7) != 7 && (read = pollOne(last, c)) != 0) {
                        polled = last; // scored once served: a hit only if stores came
                        break;
                    }
                    int ready = c == null || (i & 7) == 7 ? selector.selectNow() : 0;
                    if (ready > 0) {
                        budget.polled(true);
                        return ready;
                    }
                    long t = System.nanoTime();
                    if (t - end >= 0) {
                        budget.polled(false);
                        break;
                    }
                    if (!PollBudget.stillScheduled(previous, t)) {
                        break;
                    }
                    previous = t;
                    Thread.onSpinWait();
                }
            } finally {
                PollBudget.endPolling(); // before serving: a handler may wait, and poll, for its own answers
            }
        }
        if (polled != null) {
            serveOne(polled, read);
            return 0;
        }
        if (!adopted.isEmpty() || closed) {
            return 0; // a selectNow above may have taken the wakeup of adopt or close: no blocking now
        }
        int ready = selector.select(1_000);
        if (ready > 0) {
            blockedFor = System.nanoTime() - now; // scored once served: only if stores came
        }
        return ready;
    }

    /**
     * How long to poll now: {@value #MAX_POLL_NANOS} ns while traffic came within
     * {@link #TRAFFIC_NANOS} or polls have been paying, unless polling is off or this JVM's
     * pollers back off after a preemption ({@link PollBudget#contended()}: every core busy).
     */
    private long pollLimit(long now) {
        if (!PollBudget.enabled() || PollBudget.contended()) {
            return 0;
        }
        return now - lastTraffic < TRAFFIC_NANOS || budget.budget() > 0 ? MAX_POLL_NANOS : 0;
    }

    /** One look at the connection of the last traffic: what its {@code read} returned (a failed connection is dropped: 0). */
    private int pollOne(SelectionKey k, InletConnection c) {
        try {
            return c.poll();
        } catch (IOException e) {
            drop(k, e);
            lastKey = null;
            return 0;
        }
    }

    private void serveOne(SelectionKey k, int read) {
        long now = System.nanoTime();
        long before = dataFrames;
        try {
            ((InletConnection) k.attachment()).serveRead(read);
        } catch (IOException | java.nio.channels.CancelledKeyException | InletConnection.ProtocolException e) {
            drop(k, e);
            lastKey = null;
        }
        boolean stores = dataFrames > before;
        budget.polled(stores);
        if (stores) {
            lastTraffic = now;
        }
    }

    /** A store (or a store with a notification) was served (any connection; server thread). */
    void dataFrameServed() {
        dataFrames++;
    }

    private void serveReady() {
        long now = System.nanoTime();
        long before = dataFrames;
        serveSelected();
        if (dataFrames > before) {
            lastTraffic = now;
            if (blockedFor >= 0) {
                budget.blocked(blockedFor);
            }
        }
        blockedFor = -1;
    }

    private void serveSelected() {
        for (SelectionKey k : selector.selectedKeys()) {
            try {
                if (k.isAcceptable()) {
                    accept();
                } else if (k.attachment() instanceof InletConnection c) {
                    if (k.isWritable()) {
                        c.route.acknowledgeInbound(); // acknowledgements that waited for room
                    }
                    if (k.isReadable() && !c.route.backlogged()) {
                        lastKey = k;
                        c.serve();
                    }
                }
            } catch (IOException | java.nio.channels.CancelledKeyException e) {
                drop(k, e);
                lastKey = lastKey == k ? null : lastKey;
            } catch (InletConnection.ProtocolException e) {
                lastKey = lastKey == k ? null : lastKey;
                LOG.log(System.Logger.Level.WARNING, "direct delivery: dropping a connection: " + e.getMessage());
                drop(k, e);
            }
        }
        selector.selectedKeys().clear();
    }

    /** Accepts the connections other processes opened that {@link InletAdmission} lets in. */
    private void accept() throws IOException {
        SocketChannel ch;
        while ((ch = server.accept()) != null) {
            if (!admission.admit(selector.keys())) {
                ch.close();
                continue;
            }
            try {
                InletConnection c = RouteConnection.accepted(ch, this, hello);
                register(c);
                admission.accepted(c);
            } catch (IOException e) {
                ch.close();
            }
        }
    }

    /** @return the port's admission, for its counters */
    InletAdmission admission() {
        return admission;
    }

    /** Registers the connections this context's routes opened (server thread). */
    private void registerAdopted() {
        InletConnection c;
        while ((c = adopted.poll()) != null) {
            try {
                register(c);
            } catch (IOException | java.nio.channels.CancelledKeyException e) {
                c.route.fail(io.softcmi.cmi.CmiAccessError.TRANSIENT);
            }
        }
    }

    private void register(InletConnection c) throws IOException {
        SelectionKey key = c.channel().register(selector, SelectionKey.OP_READ, c);
        c.key = key;
        wantWrite(c, c.route.controlPending()); // its HELLO did not fit at once
    }

    private void drop(SelectionKey k, Exception why) {
        if (k.attachment() instanceof InletConnection c) {
            c.route.fail(io.softcmi.cmi.CmiAccessError.TRANSIENT);
            endpoints.dropped(c.route);
        }
        k.cancel();
        try {
            k.channel().close();
        } catch (IOException e) {
            why.addSuppressed(e);
        }
    }

    private void closeAll() {
        for (SelectionKey k : selector.keys()) {
            try {
                k.channel().close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
        inlets.clear();
    }
}
