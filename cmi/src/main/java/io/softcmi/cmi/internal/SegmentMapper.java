package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.SegmentDescriptor;
import io.softcmi.wire.SegmentFileLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Makes the mapping {@code seg_at} returns: a local segment's file mapped into this process, or a proxy's remote mapping. */
final class SegmentMapper {
    private SegmentMapper() {
    }

    /** An attach of a proxy: nothing to map, every access goes to the home. */
    static RemoteMapping mapRemote(ContextImpl context, SegmentImpl segment, io.softcmi.wire.ControlMessage.ProxyAttached a,
            boolean readOnly) {
        io.softcmi.wire.ControlMessage.ProxyReply p = a.proxy();
        TokenImpl token = p.token().length == 0 ? null : (TokenImpl) HandleCodec.token(p.token());
        long cacheBytes = !p.writeThrough() && CachedImports.ENABLED && !segment.extensible()
            ? context.cacheBytes(segment) : -1;
        return new RemoteMapping(context, segment, a.attachId(), (NodeAddressImpl) HandleCodec.nodeAddress(p.home()),
            p.homeSegmentId(), p.local().size(), readOnly, token, cacheBytes);
    }

    static LocalMapping map(ContextImpl context, SegmentImpl segment, long attachId, SegmentDescriptor d,
            boolean readOnly) {
        Arena arena = Arena.ofShared();
        try (FileChannel file = readOnly
                ? FileChannel.open(Path.of(d.path()), StandardOpenOption.READ)
                : FileChannel.open(Path.of(d.path()), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long length = d.dataOffset() + d.size();
            if (file.size() < length) {
                throw Errors.fail(CmiError.INVAL, "segment file " + d.path() + " is shorter than the segment");
            }
            MemorySegment whole = file.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE,
                0, length, arena);
            if (whole.get(ValueLayout.JAVA_LONG, SegmentFileLayout.MAGIC_OFFSET) != SegmentFileLayout.MAGIC
                    || whole.get(ValueLayout.JAVA_LONG, SegmentFileLayout.ID_OFFSET) != d.id()) {
                throw Errors.fail(CmiError.INVAL, "segment file " + d.path() + " does not hold segment " + d.id());
            }
            MemorySegment data = whole.asSlice(d.dataOffset(), d.size());
            if (segment.extensible()) {
                return new ExtensibleLocalMapping(context, segment, attachId, arena,
                    whole.asSlice(0, SegmentFileLayout.HEADER_SIZE), data, readOnly);
            }
            return new LocalMapping(context, segment, attachId, arena, data, readOnly);
        } catch (java.nio.file.NoSuchFileException e) {
            arena.close(); // removed behind the node's back: the segment is not usable, not out of resources
            throw Errors.fail(CmiError.INVAL, "segment file " + d.path() + " of segment " + d.id() + " is gone");
        } catch (IOException e) {
            arena.close(); // no descriptor or address space for the mapping (mmap ENOMEM, EMFILE)
            throw Errors.fail(CmiError.NOMEM, "cannot map segment " + d.id() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
