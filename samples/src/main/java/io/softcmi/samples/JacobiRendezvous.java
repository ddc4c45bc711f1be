package io.softcmi.samples;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How the worker processes of the Jacobi sample ({@link JacobiWorker}) find each other's
 * segments: each publishes a descriptor of a segment it made (segment id, node address, remote
 * handle, token) as one line of a file in a directory they share, written whole and renamed into
 * place; the others wait for the file, bounded in time, and attach the segment: directly by id
 * ({@code segFromId} + {@code seg_at}: the node's shared memory) when it is on their own node,
 * otherwise by importing the handle with its token ({@code seg_imp} + {@code CMI_SEG_TOKEN} +
 * {@code seg_at}: a cached import unless exported write-through).
 *
 * @param segmentId the segment's id on its node
 * @param node its node's address
 * @param handle the remote handle ({@code seg_exp})
 * @param token a token for any node with every access right ({@code tok_new})
 */
record JacobiRendezvous(long segmentId, byte[] node, byte[] handle, byte[] token) {
    /**
     * Makes a segment of {@code size} bytes, attaches it, exports it and makes a token for any
     * node.
     *
     * @param c the context
     * @param size bytes (a multiple of the page size)
     * @param writeThrough export it {@code CMI_SEG_WRITE_THROUGH} (every remote access reaches the home)
     * @return the segment's descriptor; the local mapping is in {@code mapping[0]}
     */
    static JacobiRendezvous create(CmiContext c, long size, boolean writeThrough, CmiMapping[] mapping) {
        CmiSegment s = c.segGet(size, Set.of());
        mapping[0] = c.segAt(s, Set.of());
        RemoteSegmentHandle h = c.segExp(s, writeThrough ? Set.of(ExportAttr.WRITE_THROUGH) : Set.of());
        CmiToken t = c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class));
        return new JacobiRendezvous(s.id(), c.nodeAddress().toBytes(), h.toBytes(), t.toBytes());
    }

    /** Writes this descriptor as {@code dir/name}, whole (a temporary file renamed into place). */
    void publish(Path dir, String name) {
        HexFormat hex = HexFormat.of();
        String line = segmentId + " " + hex.formatHex(node) + " " + hex.formatHex(handle) + " " + hex.formatHex(token) + "\n";
        try {
            Path tmp = dir.resolve(name + ".tmp");
            Files.writeString(tmp, line, StandardCharsets.US_ASCII);
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits for {@code dir/name} and reads it.
     *
     * @param timeoutMillis how long to wait for it
     * @return the descriptor
     * @throws IllegalStateException if it does not appear in time
     */
    static JacobiRendezvous await(Path dir, String name, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            try {
                String[] f = Files.readString(dir.resolve(name), StandardCharsets.US_ASCII).trim().split(" ");
                HexFormat hex = HexFormat.of();
                return new JacobiRendezvous(Long.parseLong(f[0]), hex.parseHex(f[1]), hex.parseHex(f[2]), hex.parseHex(f[3]));
            } catch (NoSuchFileException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no " + name + " in " + dir + " after " + timeoutMillis + " ms", e);
                }
                sleep(5);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Attaches the segment: by id when it is on this context's node, else imported.
     *
     * @param c the context
     * @return the mapping
     */
    CmiMapping attach(CmiContext c) {
        if (isLocal(c)) {
            return c.segAt(c.segFromId(segmentId), Set.of());
        }
        CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(handle));
        c.segSetToken(proxy, CmiToken.fromBytes(token));
        return c.segAt(proxy, Set.of());
    }

    /** @return whether the segment is on {@code c}'s node */
    boolean isLocal(CmiContext c) {
        return Arrays.equals(node, c.nodeAddress().toBytes());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
