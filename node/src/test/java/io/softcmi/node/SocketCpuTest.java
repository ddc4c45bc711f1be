package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SocketCpuTest {
    @Test
    void shouldFindEachEndsDescriptorAndTheCoreItsPacketsArriveOn() throws Throwable {
        assertTrue(SocketCpu.available(), "Linux with native access");
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            int fd = SocketCpu.fdOf(accepted);
            int clientFd = SocketCpu.fdOf(client);
            assertTrue(fd >= 0 && clientFd >= 0, "found: " + fd + ", " + clientFd);
            assertNotEquals(fd, clientFd);
            // The descriptor found is the accepted socket's: bytes written to it reach the client.
            byte[] hello = "through the fd".getBytes(StandardCharsets.US_ASCII);
            assertEquals(hello.length, write(fd, hello));
            ByteBuffer got = ByteBuffer.allocate(hello.length);
            while (got.hasRemaining()) {
                client.read(got);
            }
            assertEquals("through the fd", new String(got.array(), StandardCharsets.US_ASCII));
            client.write(ByteBuffer.wrap(new byte[] {1}));
            accepted.read(ByteBuffer.allocate(1));
            int cpu = SocketCpu.incomingCpu(fd);
            assertTrue(cpu >= 0 && cpu < 1024 && new LoopCpus(LoopCpus.usableCores(), 1).loopOf(cpu) == 0,
                "a core this process may use: " + cpu);
        }
    }

    @Test
    void shouldGiveMinusOneForAClosedChannelOrAnUnknownDescriptor() throws Exception {
        SocketChannel closed;
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            closed = SocketChannel.open(server.getLocalAddress());
            server.accept().close();
            closed.close();
        }
        assertEquals(-1, SocketCpu.fdOf(closed));
        assertEquals(-1, SocketCpu.incomingCpu(-1));
    }

    @SuppressWarnings("restricted")
    private static long write(int fd, byte[] bytes) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle write = linker.downcallHandle(linker.defaultLookup().find("write").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, buf, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return (long) write.invokeExact(fd, buf, (long) bytes.length);
        }
    }
}
