package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.CmiEventType;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.ConnectivityMap;
import io.softcmi.cmi.HardwareFailure;
import io.softcmi.cmi.HomeContextDown;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.Quiesce;
import io.softcmi.cmi.RemoteContextDown;
import io.softcmi.cmi.Resume;
import io.softcmi.cmi.StoreFailure;
import io.softcmi.wire.ControlMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * A context's event queue ({@code evt_get}/{@code evt_ret}): events arrive from the node as
 * notices, in the order the node generated them (which enforces the spec's HW, CMAP,
 * context-down priority), wait here until taken, and are outstanding until returned.
 */
final class EventQueue {
    private final LinkedBlockingQueue<CmiEvent> pending = new LinkedBlockingQueue<>();
    private final Set<CmiEvent> outstanding = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    void add(CmiEvent event) {
        JfrEvents.CmiEventDelivered jfr = new JfrEvents.CmiEventDelivered();
        if (jfr.shouldCommit()) {
            jfr.type = event.getClass().getSimpleName();
            jfr.commit();
        }
        pending.add(event);
    }

    /**
     * Builds the event a notice describes.
     *
     * @param n the notice
     * @param segment resolves a segment id to a handle
     * @return the event
     */
    static CmiEvent fromNotice(ControlMessage.EventNotice n, LongFunction<CmiSegment> segment) {
        CmiEventType[] types = CmiEventType.values();
        if (n.eventType() < 0 || n.eventType() >= types.length) {
            throw new IllegalArgumentException("unknown event type " + n.eventType());
        }
        List<CmiSegment> segments = new ArrayList<>();
        for (long id : n.segmentIds()) {
            segments.add(segment.apply(id));
        }
        List<NodeAddress> nodes = new ArrayList<>();
        for (byte[] b : n.nodes()) {
            nodes.add(HandleCodec.nodeAddress(b));
        }
        NodeAddress node = nodes.isEmpty() ? NodeAddress.ANY : nodes.get(0);
        CmiSegment first = segments.isEmpty() ? CmiSegment.ALL : segments.get(0);
        return switch (types[n.eventType()]) {
            case QUIESCE -> new Quiesce(segments);
            case RESUME -> new Resume(segments);
            case RCTXT_DOWN -> new RemoteContextDown(node, n.contextId(), segments);
            case HCTXT_DOWN -> new HomeContextDown(node, n.contextId(), segments);
            case STORE_FAILURE -> new StoreFailure(first, n.offsets());
            case HW -> new HardwareFailure(first, n.offsets());
            case CMAP -> new ConnectivityMap(n.requestId(), nodes);
        };
    }

    /** @return the next event, now outstanding, or null */
    CmiEvent poll() {
        return take(pending.poll());
    }

    /**
     * @param timeout longest wait
     * @return the next event, now outstanding, or null after the timeout
     * @throws InterruptedException if interrupted while waiting
     */
    CmiEvent poll(Duration timeout) throws InterruptedException {
        return take(pending.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    private CmiEvent take(CmiEvent e) {
        if (e != null) {
            outstanding.add(e);
        }
        return e;
    }

    /**
     * Takes an event back ({@code evt_ret}).
     *
     * @param event an outstanding event
     */
    void giveBack(CmiEvent event) {
        if (event == null || !outstanding.remove(event)) {
            throw Errors.fail(CmiError.INVAL, "event was not handed out by evt_get or was already returned");
        }
    }

    /** @return events waiting to be taken */
    int size() {
        return pending.size();
    }
}
