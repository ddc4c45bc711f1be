package io.softcmi.node;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The few libc calls the daemon needs that the JDK does not offer, through FFM downcalls:
 * {@code posix_fallocate} (size a segment file fully, so running out of memory is a
 * {@code CMI_ERR_NOMEM} at {@code seg_get} rather than a {@code SIGBUS} on first touch),
 * {@code fallocate(PUNCH_HOLE)} (give back an extensible segment's memory when it shrinks) and
 * {@code mlock} ({@code CMI_SEG_LOCK}). Linux only, like {@code /dev/shm}.
 */
final class NativeFiles {
    private static final int O_RDWR = 2;
    private static final int FALLOC_FL_KEEP_SIZE = 0x01;
    private static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO_HANDLE = Linker.Option.captureStateLayout()
        .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle OPEN = downcall("open",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), ERRNO);
    private static final MethodHandle CLOSE = downcall("close",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle POSIX_FALLOCATE = downcall("posix_fallocate",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FALLOCATE = downcall("fallocate",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG), ERRNO);
    private static final MethodHandle MLOCK = downcall("mlock",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), ERRNO);

    private NativeFiles() {
    }

    /**
     * A libc function through an FFM downcall, for this class and the daemon's other few native
     * calls ({@link SocketCpu}, {@link LoopCpus}).
     *
     * @return its handle, or null where libc lacks it or native access is denied
     */
    @SuppressWarnings("restricted") // the daemon's audited libc calls
    static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        try {
            return LIBC.find(name).map(s -> LINKER.downcallHandle(s, fd, options)).orElse(null);
        } catch (IllegalCallerException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * Allocates backing memory for {@code [offset, offset+length)} of a file.
     *
     * @param file the file
     * @param offset start
     * @param length bytes
     * @return 0, or the errno (ENOSPC when the memory is not there)
     */
    static int allocate(Path file, long offset, long length) {
        if (length == 0) {
            return 0;
        }
        if (POSIX_FALLOCATE == null) {
            return 95; // EOPNOTSUPP
        }
        try (Arena arena = Arena.ofConfined()) {
            int fd = open(arena, file);
            if (fd < 0) {
                return -fd;
            }
            try {
                return (int) POSIX_FALLOCATE.invokeExact(fd, offset, length);
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
                assert ignored >= -1;
            }
        } catch (Throwable t) {
            throw new IllegalStateException("posix_fallocate failed", t);
        }
    }

    /**
     * Frees the memory behind {@code [offset, offset+length)}, keeping the file's size; the
     * range reads as zero afterwards.
     *
     * @param file the file
     * @param offset start
     * @param length bytes
     * @return 0, or the errno
     */
    static int punchHole(Path file, long offset, long length) {
        if (length == 0) {
            return 0;
        }
        if (FALLOCATE == null) {
            return 95;
        }
        try (Arena arena = Arena.ofConfined()) {
            int fd = open(arena, file);
            if (fd < 0) {
                return -fd;
            }
            try {
                MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
                int rc = (int) FALLOCATE.invokeExact(state, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length);
                return rc == 0 ? 0 : (int) ERRNO_HANDLE.get(state, 0L);
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
                assert ignored >= -1;
            }
        } catch (Throwable t) {
            throw new IllegalStateException("fallocate failed", t);
        }
    }

    /**
     * Locks a mapped range in memory.
     *
     * @param mapped the mapping
     * @return 0, or the errno
     */
    static int lock(MemorySegment mapped) {
        if (MLOCK == null) {
            return 95;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int rc = (int) MLOCK.invokeExact(state, mapped, mapped.byteSize());
            return rc == 0 ? 0 : (int) ERRNO_HANDLE.get(state, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("mlock failed", t);
        }
    }

    private static int open(Arena arena, Path file) throws Throwable {
        MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
        int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(file.toString()), O_RDWR);
        return fd >= 0 ? fd : -(int) ERRNO_HANDLE.get(state, 0L);
    }
}
