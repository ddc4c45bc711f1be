package io.softcmi.node;

import io.softcmi.cmi.internal.ArrivalWindow;
import io.softcmi.cmi.internal.LatencySlice;
import io.softcmi.cmi.internal.PollBudget;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One of the home's few data-path I/O threads (an agent, after Aeron's): it owns a selector and
 * every {@link DataConnection} handed to it, and serves all of them. When a pass finds nothing
 * to do it polls the selector for a {@link PollBudget} (only while requests have been arriving
 * within a few round trips, or within {@link PollBudget#TRAFFIC_NANOS}, never while the machine's
 * cores are busy, and never while as many of the node's connections as there are cores sent
 * requests lately, {@link RecentConnections}), longer while requests have been arriving at
 * short intervals (the {@link ArrivalWindow}, under the same load rules), then blocks in
 * {@link Selector#select()} until a socket is ready. While the last pass with requests served a
 * single connection (the hot one), the poll reads that connection's socket directly and asks the
 * selector only every {@link #SELECT_EVERY}th look. No thread per connection and no yield loop.
 * Where configured, the loop asks the kernel for a short scheduling slice ({@link LatencySlice}),
 * so that a request arriving while every core computes wakes it without waiting for a compute
 * thread's slice to end.
 * A connection held for a notification's creator ({@link DataConnection}) is not in the
 * selector's interest until its creator's writer hands it back ({@link #resume}). Where the
 * loops steer ({@link #steer(LoopCpus, int, DataIoLoop[])}), the loop runs on its own cores
 * (unless {@link LoopCpus.Mode#FOLLOW}, where it only records the core of each pass) and every
 * {@link #STEER_EVERY} passes of a connection hands it to the loop {@link SteeringRule} picks for
 * the core its packets arrive on.
 */
final class DataIoLoop implements Runnable {
    /** Longest the loop polls before it blocks, when requests arrive back to back. */
    static final long MAX_POLL_NANOS = 50_000;
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final Selector selector;
    private final Queue<DataConnection> incoming = new ConcurrentLinkedQueue<>();
    /** Held connections handed back by a creator's writer ({@link #resume}), to be served again. */
    private final Queue<DataConnection> resumed = new ConcurrentLinkedQueue<>();
    /** TLS connections holding decrypted input the selector cannot report: served again before any wait. */
    private final ArrayDeque<SelectionKey> again = new ArrayDeque<>();
    private final PollBudget budget = new PollBudget(MAX_POLL_NANOS, true);
    /** Polls longer while requests have been arriving at short intervals (this thread only). */
    private final ArrivalWindow arrivals = ArrivalWindow.fromProperties();
    private final DataPathStats stats;
    private final AtomicInteger connections = new AtomicInteger();
    /** This loop's connections with recent requests. */
    private final RecentConnections recent = new RecentConnections();
    /** The node's connections with recent requests, over all its loops: with as many as cores, no loop polls. */
    private java.util.function.IntSupplier nodeActive = () -> recent.seen(System.nanoTime());
    private volatile boolean running = true;
    /** {@link System#nanoTime()} of the last pass that found a socket ready. */
    private long lastRequest = System.nanoTime() - PollBudget.TRAFFIC_NANOS;
    private final Thread thread;
    /** How often (in service passes of a connection) the loop asks where its packets arrive. */
    static final int STEER_EVERY = 64;
    /** The loops' cores, or null: no pinning and no steering. */
    private LoopCpus cpus;
    /** This loop's index in {@link #all}. */
    private int index;
    /** Every loop of the data server, by index. */
    private DataIoLoop[] all;
    /** The core this loop ran on at its last pass ({@link LoopCpus.Mode#FOLLOW}), -1 before. */
    private volatile int lastCore = -1;
    /**
     * The hot connection: the only one the last pass with requests served, or null. A poll reads
     * its socket directly, looking at the selector only every {@link #SELECT_EVERY}th time, so a
     * request of a lone client costs one system call to find and read instead of two.
     */
    private SelectionKey hot;
    /** The hot connection, when a poll read its request: served before the selected keys. */
    private SelectionKey hotReady;
    /** While a poll reads the hot connection directly, it asks the selector every this many looks. */
    static final int SELECT_EVERY = 4;

    DataIoLoop(String name, DataPathStats stats) throws IOException {
        this.selector = Selector.open();
        this.stats = stats;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    /** @param sum the node's connections with recent requests, over all its loops (set before {@link #start()}) */
    void nodeActive(java.util.function.IntSupplier sum) {
        nodeActive = sum;
    }

    /**
     * @param now {@link System#nanoTime()} now
     * @return this loop's connections with recent requests, as it last counted them (0 once stale)
     */
    int recentlyActive(long now) {
        return recent.seen(now);
    }

    /**
     * Pins this loop to its cores and lets it hand each connection to the loop on the core its
     * packets arrive on (set before {@link #start()}).
     *
     * @param cpus the loops' cores
     * @param index this loop's index
     * @param loops every loop, by index
     */
    void steer(LoopCpus cpus, int index, DataIoLoop[] loops) {
        this.cpus = cpus;
        this.index = index;
        this.all = loops;
    }

    void start() {
        thread.start();
    }

    /** @return connections this loop serves */
    int load() {
        return connections.get();
    }

    /** Hands an authenticated connection to this loop (any thread). */
    void adopt(DataConnection c) {
        stats.connectionsOpen.incrementAndGet();
        stats.connectionsTotal.increment();
        take(c);
    }

    /** Takes over a connection another loop let go (any thread). */
    private void take(DataConnection c) {
        connections.incrementAndGet();
        incoming.add(c);
        selector.wakeup();
    }

    /** A held connection's creator caught up: serve it again on this loop (any thread; never blocks). */
    void resume(DataConnection c) {
        resumed.add(c);
        selector.wakeup();
    }

    @Override
    public void run() {
        if (LatencySlice.applyToCurrentThread()) {
            stats.loopsWithShortSlice.incrementAndGet();
        }
        if (cpus != null && cpus.mode() == LoopCpus.Mode.PIN && !cpus.pinCurrentThread(index)) {
            LOG.log(Level.DEBUG, "data I/O loop {0}: could not pin to cores {1}", index,
                java.util.Arrays.toString(cpus.coresOf(index)));
        }
        while (running) {
            turn();
        }
        for (SelectionKey k : selector.keys()) {
            ((DataConnection) k.attachment()).close();
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // Closing.
        }
    }

    /**
     * One turn of the loop: takes the connections handed over, waits for ready keys (a poll
     * for the budget, then a blocking select) and serves every ready request. A method of its
     * own rather than the body of {@link #run}'s loop, so that the JIT compiles it after a few
     * thousand turns (an invocation count): a loop body compiled only with {@code run} itself
     * waits for on-stack replacement, tens of thousands of back-edges, and a loop that turns a
     * few thousand times a second ran interpreted for many seconds (docs/architecture.md §7.5c).
     */
    private void turn() {
        try {
            registerIncoming();
            serveResumed();
            // Keys a flush in registerIncoming selected count as ready too.
            int ready = Math.max(selector.selectNow(), selector.selectedKeys().size());
            long waitStart = System.nanoTime();
            if (ready == 0 && again.isEmpty()) {
                ready = poll(waitStart);
                long polled = System.nanoTime();
                stats.pollNanos.add(polled - waitStart);
                if (ready == 0 && incoming.isEmpty() && resumed.isEmpty()) {
                    ready = selector.select();
                    long woke = System.nanoTime();
                    stats.blockNanos.add(woke - polled);
                    if (polled == waitStart || polled - waitStart < 1_000) {
                        budget.blocked(woke - waitStart); // blocked without polling
                    }
                }
            }
            long workStart = System.nanoTime();
            if (cpus != null && cpus.mode() == LoopCpus.Mode.FOLLOW) {
                lastCore = LoopCpus.currentCore();
            }
            if (ready > 0) {
                arrivals.arrived();
                serveSelected();
                lastRequest = System.nanoTime();
            }
            serveAgain();
            stats.workNanos.add(System.nanoTime() - workStart);
        } catch (IOException | RuntimeException e) {
            if (running) {
                LOG.log(Level.WARNING, "data I/O loop: {0}", e.toString());
            }
        }
    }

    /**
     * Polls the selector for the current budget, or longer while requests have been arriving at
     * short intervals ({@link ArrivalWindow}). @return ready keys, 0 if none came in time
     */
    private int poll(long start) throws IOException {
        // While requests keep coming, poll whatever the hit rate says (PollBudget.budgetWhileTraffic):
        // clients whose own waits fell back to blocking then find fast replies when they probe.
        recent.count(start); // rolls this loop's windows before the node's sum reads them
        if (nodeActive.getAsInt() >= PollBudget.cores()) {
            return 0; // requests come as a stream from many clients: no poll takes a core from them
        }
        long limit = budget.budgetWhileTraffic(start, lastRequest);
        long until = arrivals.pollUntil();
        if (until != 0 && until - start > limit) {
            limit = until - start;
        }
        if (limit == 0 || !PollBudget.startPolling()) {
            return 0;
        }
        try {
            long previous = start;
            boolean scored = false; // the budget's hit rate is about its own MAX_POLL_NANOS
            for (int look = 1; incoming.isEmpty() && resumed.isEmpty(); look++) {
                long now = System.nanoTime();
                if (!scored && now - start >= MAX_POLL_NANOS) {
                    budget.polled(false);
                    scored = true;
                }
                if (now - start >= limit || !PollBudget.stillScheduled(previous, now)) {
                    if (!scored) {
                        budget.polled(false);
                    }
                    return 0;
                }
                previous = PollBudget.pause(start, previous, now);
                if (previous == PollBudget.STOP) {
                    if (!scored) {
                        budget.polled(false);
                    }
                    return 0;
                }
                int ready;
                if (hot != null && look % SELECT_EVERY != 0) {
                    ready = readHot() ? 1 : 0; // one system call per look, which reads the request it finds
                } else {
                    ready = selector.selectNow();
                }
                if (ready > 0) {
                    if (!scored) {
                        budget.polled(true);
                    }
                    return ready;
                }
            }
            return 0;
        } finally {
            PollBudget.endPolling();
        }
    }

    private void registerIncoming() throws IOException {
        DataConnection c;
        while ((c = incoming.poll()) != null) {
            try {
                c.channel().configureBlocking(false);
                SelectionKey k = register(selector, c.channel(), c);
                DataConnection held = c;
                c.registered(k, () -> resume(held));
                serve(k); // its first requests may already be buffered in the socket
            } catch (IOException e) {
                closed(c);
            }
        }
    }

    /**
     * Registers a connection's channel for reads with a loop's selector, also when the channel
     * comes back to a loop it left a moment ago (steered on, and back again before this loop
     * selected): its old, cancelled key then stays in the selector until the next select, and
     * registering again throws {@link java.nio.channels.CancelledKeyException}. This flushes it
     * with a {@code selectNow()} and registers again; the keys that select finds ready stay in
     * the selected-key set and are served in the same pass ({@link #turn}). Before 2026-11-28
     * the exception closed the connection (once in about six suite runs of
     * {@code DataPathScaleTest}'s rotation).
     *
     * @param selector the loop's selector (its thread only)
     * @param channel a non-blocking channel
     * @param attachment the key's attachment
     * @return the channel's valid key in {@code selector}
     * @throws IOException if the selector fails
     */
    static SelectionKey register(Selector selector, java.nio.channels.SocketChannel channel, Object attachment)
            throws IOException {
        try {
            return channel.register(selector, SelectionKey.OP_READ, attachment);
        } catch (java.nio.channels.CancelledKeyException e) {
            selector.selectNow();
            return channel.register(selector, SelectionKey.OP_READ, attachment);
        }
    }

    private void serveResumed() {
        DataConnection c;
        while ((c = resumed.poll()) != null) {
            SelectionKey k = c.key();
            if (k != null && k.isValid()) {
                c.resume();
                serve(k);
            }
        }
    }

    /**
     * Reads the hot connection's socket once, if there is one ({@link DataConnection#readAhead}).
     *
     * @return true if it read bytes, reached the end of the stream or failed: serve it now
     */
    private boolean readHot() {
        SelectionKey k = hot;
        if (k == null) {
            return false;
        }
        if (!k.isValid()) {
            hot = null; // closed, or moved to another loop
            return false;
        }
        int n;
        try {
            n = ((DataConnection) k.attachment()).readAhead();
        } catch (IOException e) {
            n = -1; // its service meets the failure again and closes it
        }
        if (n == 0) {
            return false;
        }
        hotReady = k;
        stats.hotReads.increment();
        return true;
    }

    private void serveSelected() {
        long now = System.nanoTime();
        SelectionKey only = null;
        int served = 0;
        if (hotReady != null) {
            only = hotReady;
            hotReady = null;
            serveRequests(only, now);
            served++;
        }
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey k = it.next();
            it.remove();
            if (k != only) {
                serveRequests(k, now);
                served++;
            }
            only = k;
        }
        hot = served == 1 && only.isValid() && ((DataConnection) only.attachment()).readsAhead() ? only : null;
    }

    /** Serves a connection whose socket was ready, and asks now and then where its packets arrive. */
    private void serveRequests(SelectionKey k, long now) {
        DataConnection c = (DataConnection) k.attachment();
        recent.served(c, now);
        serve(k);
        if (cpus != null && c.arrival != null) {
            int core = c.arrival.coreEvery(STEER_EVERY);
            if (core >= 0) {
                steer(c, k, core);
            }
        }
    }

    /**
     * Hands a connection to the loop {@link SteeringRule} chooses for the core its packets
     * arrive on, if that is another loop and the connection can move now
     * ({@link DataConnection#movable()}). The client may poll unless the cores are busy
     * ({@link PollBudget#crowded()}) or as many connections sent requests lately as there are cores.
     */
    private void steer(DataConnection c, SelectionKey k, int core) {
        if (!c.movable()) {
            return;
        }
        int to;
        if (cpus.rotates()) {
            to = (index + 1) % all.length;
        } else {
            int[] loads = new int[all.length];
            for (int i = 0; i < all.length; i++) {
                loads[i] = all[i].load();
            }
            boolean mayPoll = !PollBudget.crowded() && nodeActive.getAsInt() < PollBudget.cores();
            int arrives = cpus.mode() == LoopCpus.Mode.FOLLOW ? loopLastOn(core) : cpus.loopOf(core);
            to = SteeringRule.choose(index, arrives, mayPoll, loads);
        }
        if (to == index) {
            return;
        }
        k.cancel(); // the old key leaves this selector at its next select; the new loop registers the channel anew
        connections.decrementAndGet();
        stats.connectionsMoved.increment();
        all[to].take(c);
    }

    /** @return the loop that last ran on {@code core}, or -1 */
    private int loopLastOn(int core) {
        for (int i = 0; i < all.length; i++) {
            if (all[i].lastCore == core) {
                return i;
            }
        }
        return -1;
    }

    private void serveAgain() {
        for (int i = again.size(); i > 0; i--) {
            SelectionKey k = again.poll();
            if (k.isValid()) {
                serve(k);
            }
        }
    }

    private void serve(SelectionKey k) {
        DataConnection c = (DataConnection) k.attachment();
        boolean keep;
        try {
            keep = k.isValid() && c.service();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "data connection ended: {0}", e.getMessage());
            keep = false;
        }
        if (!keep) {
            k.cancel();
            closed(c);
        } else if (c.hasBufferedInput() && !again.contains(k)) {
            again.add(k);
        }
    }

    private void closed(DataConnection c) {
        c.close();
        connections.decrementAndGet();
        stats.connectionsOpen.decrementAndGet();
    }

    /** Stops the loop and closes its connections. */
    void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
