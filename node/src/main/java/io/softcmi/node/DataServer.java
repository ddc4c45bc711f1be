package io.softcmi.node;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The home's remote data path: a small fixed set of {@link DataIoLoop}s serving every
 * authenticated data connection ({@code cmid --io-threads N}; by default one per four cores, at
 * least two and at most eight). A new connection goes to the loop with the fewest connections;
 * on Linux the loops are pinned to their share of the daemon's cores ({@link LoopCpus}) and
 * hand each connection to the loop {@link SteeringRule} picks for the core its packets arrive on.
 * No loop polls while the node's connections with recent requests, over all loops, are as many
 * as its cores ({@link RecentConnections}): a loop that is not needed blocks and costs nothing.
 */
final class DataServer implements AutoCloseable {
    private final DataIoLoop[] loops;
    private final HomeAccess access;
    private final DataPathStats stats;
    /** The loops' cores, or null: loops not pinned, connections not steered. */
    private final LoopCpus cpus;

    DataServer(NodeState state, int ioThreads) throws IOException {
        this.access = new HomeAccess(state);
        this.stats = state.dataStats;
        this.loops = new DataIoLoop[ioThreads];
        for (int i = 0; i < ioThreads; i++) {
            loops[i] = new DataIoLoop("cmid-data-io-" + i, stats);
        }
        java.util.function.IntSupplier active = () -> {
            long now = System.nanoTime();
            int sum = 0;
            for (DataIoLoop l : loops) {
                sum += l.recentlyActive(now);
            }
            return sum;
        };
        this.cpus = LoopCpus.plan(ioThreads);
        for (int i = 0; i < ioThreads; i++) {
            loops[i].nodeActive(active);
            if (cpus != null) {
                loops[i].steer(cpus, i, loops);
            }
            loops[i].start();
        }
    }

    /**
     * The default number of I/O threads: one per four cores, at least two (measured on 2 cores:
     * with 8 and 32 contexts reading from the home, two loops served 3-65% more requests per
     * second than one in each of 12 pairs of runs, docs/benchmarks.md "Fan-in: two I/O loops by
     * default, and no polls while as many parties wait as there are cores"), at most eight.
     *
     * @return the default number of I/O threads for this machine
     */
    static int defaultIoThreads() {
        return Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors() / 4));
    }

    /** @return the data path's counters */
    DataPathStats stats() {
        return stats;
    }

    /**
     * Serves an authenticated connection from now on.
     *
     * @param ch the socket, after its HELLO
     * @param client the node and session its ticket proved
     */
    void adopt(java.nio.channels.SocketChannel ch, io.softcmi.wire.TlsChannel tls, DataHandshake.DataClient client) {
        DataIoLoop least = Arrays.stream(loops).min(Comparator.comparingInt(DataIoLoop::load)).orElseThrow();
        least.adopt(new DataConnection(ch, tls, client, access, stats, cpus != null ? new ArrivalCore(SocketCpu.fdOf(ch)) : null));
    }

    @Override
    public void close() {
        for (DataIoLoop l : loops) {
            l.close();
        }
    }
}
