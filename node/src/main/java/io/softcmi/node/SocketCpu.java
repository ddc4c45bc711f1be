package io.softcmi.node;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which core the kernel delivers a connection's incoming packets on: Linux's
 * {@code SO_INCOMING_CPU}, read with {@code getsockopt} through an FFM downcall. On loopback that
 * is the core the client thread sent from (the receive path runs in the sender's system call);
 * on a network card it is the core its queue's interrupt is steered to. The {@link DataIoLoop}s
 * use it to serve each connection from the loop that runs on that core ({@link LoopCpus}), so
 * that replies wake their readers on the same core instead of across cores.
 *
 * <p>The JDK gives no descriptor for a {@link SocketChannel}: {@link #fdOf} finds it among the
 * process's open sockets ({@code /proc/self/fd}) by comparing each one's {@code getsockname}
 * and {@code getpeername} with the channel's addresses. It costs about a microsecond per open
 * descriptor, once per connection, on the thread that adopts it.
 */
final class SocketCpu {
    /** {@code SOL_SOCKET} and {@code SO_INCOMING_CPU} in Linux's generic numbering (x86-64, aarch64). */
    private static final int SOL_SOCKET = 1;
    private static final int SO_INCOMING_CPU = 49;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_MAX = 128;
    private static final FunctionDescriptor NAME = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
        ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    private static final MethodHandle GETSOCKOPT = NativeFiles.downcall("getsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT,
        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    private static final MethodHandle GETSOCKNAME = NativeFiles.downcall("getsockname", NAME);
    private static final MethodHandle GETPEERNAME = NativeFiles.downcall("getpeername", NAME);

    private SocketCpu() {
    }

    /** @return whether this platform offers the calls (Linux with FFM native access) */
    static boolean available() {
        return GETSOCKOPT != null && GETSOCKNAME != null && GETPEERNAME != null && Files.isDirectory(Path.of("/proc/self/fd"));
    }

    /**
     * The file descriptor of a connected channel.
     *
     * @param ch an open, connected channel of this process
     * @return its descriptor, or -1 when it cannot be found (not Linux, no native access, closed)
     */
    static int fdOf(SocketChannel ch) {
        if (!available()) {
            return -1;
        }
        try {
            InetSocketAddress local = (InetSocketAddress) ch.getLocalAddress();
            InetSocketAddress peer = (InetSocketAddress) ch.getRemoteAddress();
            if (local == null || peer == null) {
                return -1;
            }
            try (Arena arena = Arena.ofConfined();
                    DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
                MemorySegment addr = arena.allocate(SOCKADDR_MAX);
                MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
                for (Path p : fds) {
                    int fd;
                    try {
                        fd = Integer.parseInt(p.getFileName().toString());
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    if (matches(GETSOCKNAME, fd, local, addr, len) && matches(GETPEERNAME, fd, peer, addr, len)) {
                        return fd;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static boolean matches(MethodHandle call, int fd, InetSocketAddress want, MemorySegment addr,
            MemorySegment len) {
        len.set(ValueLayout.JAVA_INT, 0, SOCKADDR_MAX);
        int r;
        try {
            r = (int) call.invokeExact(fd, addr, len);
        } catch (Throwable t) {
            return false;
        }
        if (r != 0) {
            return false; // not a socket, or not connected
        }
        int family = Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT, 0));
        int port = Short.toUnsignedInt(Short.reverseBytes(addr.get(ValueLayout.JAVA_SHORT, 2)));
        if (port != want.getPort()) {
            return false;
        }
        byte[] ip;
        if (family == AF_INET) {
            ip = addr.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE);
        } else if (family == AF_INET6) {
            ip = unmapped(addr.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE));
        } else {
            return false;
        }
        InetAddress w = want.getAddress();
        return w != null && java.util.Arrays.equals(ip, unmapped(w.getAddress()));
    }

    /** @return the IPv4 address inside an IPv4-mapped IPv6 address, else the address as it is */
    private static byte[] unmapped(byte[] ip) {
        if (ip.length != 16) {
            return ip;
        }
        for (int i = 0; i < 10; i++) {
            if (ip[i] != 0) {
                return ip;
            }
        }
        return ip[10] == (byte) 0xff && ip[11] == (byte) 0xff ? java.util.Arrays.copyOfRange(ip, 12, 16) : ip;
    }

    /**
     * @param fd a socket's descriptor ({@link #fdOf})
     * @return the core that last received its packets, or -1 when unknown (none came yet)
     */
    static int incomingCpu(int fd) {
        if (fd < 0 || GETSOCKOPT == null) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 4);
            int r = (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_INCOMING_CPU, value, len);
            return r == 0 ? value.get(ValueLayout.JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }
}
