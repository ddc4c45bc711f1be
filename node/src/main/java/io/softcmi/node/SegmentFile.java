package io.softcmi.node;

import io.softcmi.wire.SegmentFileLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The file in the shared-memory directory that holds one segment's memory (layout in
 * {@link SegmentFileLayout}). Created owner-only, sized to the whole maximum size before any
 * process maps it, its backing memory allocated up front (or up to the break for extensible
 * segments) so that exhaustion shows as {@code CMI_ERR_NOMEM}, never as {@code SIGBUS}.
 * The daemon keeps the header mapped to publish the break.
 */
final class SegmentFile {
    private static final VarHandle BREAK = ValueLayout.JAVA_LONG.varHandle();
    private final Path path;
    private final Arena arena;
    private final MemorySegment header;
    private MemorySegment locked;

    private SegmentFile(Path path, Arena arena, MemorySegment header) {
        this.path = path;
        this.arena = arena;
        this.header = header;
    }

    /**
     * Creates and sizes the file.
     *
     * @param path where
     * @param id segment id
     * @param size maximum size
     * @param flags SegFlag bits
     * @param initialBreak bytes to allocate now (size, or 0 for an extensible segment)
     * @param allocate whether to allocate backing memory now (false for NORESERVE)
     * @return the file
     * @throws NodeException NOMEM if the memory or file cannot be had
     */
    static SegmentFile create(Path path, long id, long size, int flags, long initialBreak, boolean allocate) {
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (IOException e) {
            throw NodeException.nomem("cannot create segment file " + path + ": " + e);
        }
        Arena arena = Arena.ofShared();
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(path.toFile(), "rw");
                FileChannel ch = raf.getChannel()) {
            raf.setLength(SegmentFileLayout.HEADER_SIZE + size);
            int rc = NativeFiles.allocate(path, 0, SegmentFileLayout.HEADER_SIZE + (allocate ? initialBreak : 0));
            if (rc != 0) {
                throw NodeException.nomem("cannot allocate " + size + " bytes for segment " + id + " (errno " + rc + ")");
            }
            MemorySegment header = ch.map(FileChannel.MapMode.READ_WRITE, 0, SegmentFileLayout.HEADER_SIZE, arena);
            header.set(ValueLayout.JAVA_LONG, SegmentFileLayout.ID_OFFSET, id);
            header.set(ValueLayout.JAVA_LONG, SegmentFileLayout.SIZE_OFFSET, size);
            header.set(ValueLayout.JAVA_INT, SegmentFileLayout.FLAGS_OFFSET, flags);
            BREAK.setRelease(header, SegmentFileLayout.BREAK_OFFSET, initialBreak);
            // The magic last: a file with it is complete.
            header.set(ValueLayout.JAVA_LONG, SegmentFileLayout.MAGIC_OFFSET, SegmentFileLayout.MAGIC);
            return new SegmentFile(path, arena, header);
        } catch (IOException | RuntimeException e) {
            arena.close();
            deleteQuietly(path);
            if (e instanceof NodeException ne) {
                throw ne;
            }
            throw NodeException.nomem("cannot size segment file " + path + ": " + e);
        }
    }

    Path path() {
        return path;
    }

    /**
     * Locks the whole segment in memory ({@code CMI_SEG_LOCK}).
     *
     * @param size segment size
     * @return 0, or the errno of {@code mlock}
     */
    int lock(long size) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            locked = ch.map(FileChannel.MapMode.READ_WRITE, SegmentFileLayout.HEADER_SIZE, size, arena);
            return NativeFiles.lock(locked);
        } catch (IOException e) {
            return 5; // EIO
        }
    }

    /**
     * Maps the whole file (header and data) for the daemon's remote data path; unmapped by {@link #delete}.
     *
     * @param size segment size
     * @return the mapping
     */
    MemorySegment mapWhole(long size) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, SegmentFileLayout.HEADER_SIZE + size, arena);
        } catch (IOException e) {
            throw NodeException.nomem("cannot map segment file " + path + ": " + e);
        }
    }

    /**
     * Grows the backing memory of {@code [from, to)} of the data, before the break moves there.
     *
     * @return 0 or errno
     */
    int allocate(long from, long to) {
        return NativeFiles.allocate(path, SegmentFileLayout.HEADER_SIZE + from, to - from);
    }

    /**
     * Frees {@code [from, to)} of the data after the break moved below it; it reads as zero when
     * the break grows again. Falls back to zero-filling where holes are not supported.
     */
    void release(long from, long to) {
        if (NativeFiles.punchHole(path, SegmentFileLayout.HEADER_SIZE + from, to - from) != 0) {
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Arena a = Arena.ofConfined()) {
                ch.map(FileChannel.MapMode.READ_WRITE, SegmentFileLayout.HEADER_SIZE + from, to - from, a).fill((byte) 0);
            } catch (IOException e) {
                throw NodeException.nomem("cannot release segment memory: " + e);
            }
        }
    }

    /** Publishes a new break to every attached process (release store). */
    void publishBreak(long brk) {
        BREAK.setRelease(header, SegmentFileLayout.BREAK_OFFSET, brk);
    }

    /**
     * Deletes the file and unmaps it: the memory goes back to the system. Never throws, so the
     * caller's accounting always runs. A data-path transfer may still hold the mapping (an NIO
     * read or write into it keeps the arena acquired while it runs, and {@link Arena#close}
     * then fails): the unmap is retried shortly after on a virtual thread until it succeeds.
     */
    void delete() {
        deleteQuietly(path);
        if (!tryUnmap()) {
            Thread.ofVirtual().name("segment-unmap").start(() -> {
                for (long wait = 1; !tryUnmap(); wait = Math.min(wait * 2, 100)) {
                    try {
                        Thread.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }
    }

    private boolean tryUnmap() {
        try {
            arena.close();
            return true;
        } catch (IllegalStateException inUse) {
            return !arena.scope().isAlive();
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // The directory is removed at shutdown; a file that cannot be deleted now stays until then.
        }
    }
}
