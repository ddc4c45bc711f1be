package io.softcmi.cmi.internal;

import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;

/**
 * A socket's write side for tests: a subclass says what one gathering write takes; every other
 * write goes through it, a read finds nothing, and the channel never closes.
 */
abstract class GatheringWriteStub implements ByteChannel, GatheringByteChannel {
    @Override
    public abstract long write(ByteBuffer[] srcs, int offset, int length);

    @Override
    public long write(ByteBuffer[] srcs) {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public int write(ByteBuffer src) {
        return (int) write(new ByteBuffer[] {src});
    }

    @Override
    public int read(ByteBuffer dst) {
        return 0;
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
    }
}
