package io.softcmi.systemtests;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Leaves this process without a free file descriptor until closed (Linux): lowers the soft
 * {@code RLIMIT_NOFILE} to just above the highest descriptor open and fills every free one below
 * it with {@code /dev/null}, so that the next {@code open} fails with {@code EMFILE}. Closing gives
 * the descriptors back and restores the limit. Meanwhile nothing in the process can open a file,
 * load a class from a directory or connect: classes a test needs in that window must be loaded
 * before.
 */
@SuppressWarnings("restricted") // getrlimit and setrlimit downcalls; the tests run with --enable-native-access
final class FileDescriptorsExhausted implements AutoCloseable {
    private static final int RLIMIT_NOFILE = 7;
    private static final MethodHandle GETRLIMIT;
    private static final MethodHandle SETRLIMIT;
    static {
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor rlimit = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
        GETRLIMIT = linker.downcallHandle(linker.defaultLookup().find("getrlimit").orElseThrow(), rlimit);
        SETRLIMIT = linker.downcallHandle(linker.defaultLookup().find("setrlimit").orElseThrow(), rlimit);
    }

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment saved = arena.allocate(16, 8);
    private final List<FileInputStream> fillers = new ArrayList<>();

    private FileDescriptorsExhausted() throws IOException {
        call(GETRLIMIT, saved);
        int highest = Arrays.stream(new File("/proc/self/fd").list()).mapToInt(Integer::parseInt).max().orElse(2);
        MemorySegment lowered = arena.allocate(16, 8);
        lowered.set(ValueLayout.JAVA_LONG, 0, highest + 1);
        lowered.set(ValueLayout.JAVA_LONG, 8, saved.get(ValueLayout.JAVA_LONG, 8));
        call(SETRLIMIT, lowered);
        try {
            while (fillers.size() <= highest + 1) {
                fillers.add(new FileInputStream("/dev/null"));
            }
            throw new IllegalStateException("descriptors still free after " + fillers.size() + " opens");
        } catch (IOException full) {
            // every descriptor below the limit is taken
        }
    }

    /** @return the process with no descriptor left, until {@link #close} */
    static FileDescriptorsExhausted now() throws IOException {
        return new FileDescriptorsExhausted();
    }

    private static void call(MethodHandle h, MemorySegment rlimit) {
        int rc;
        try {
            rc = (int) h.invokeExact(RLIMIT_NOFILE, rlimit);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new IllegalStateException("getrlimit/setrlimit(RLIMIT_NOFILE) failed");
        }
    }

    @Override
    public void close() throws IOException {
        for (FileInputStream f : fillers) {
            f.close();
        }
        call(SETRLIMIT, saved);
        arena.close();
    }
}
