package io.softcmi.systemtests;

import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.ConnectivityMap;
import io.softcmi.cmi.EventReturn;
import io.softcmi.cmi.HomeContextDown;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.Quiesce;
import io.softcmi.cmi.RemoteContextDown;
import io.softcmi.cmi.Resume;
import io.softcmi.cmi.internal.NodeAddressImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The event and failure commands of {@link RemoteWorkers}, for tests whose contexts must live in
 * worker processes (for example inside network namespaces, where the test's own JVM cannot reach
 * the data path). Events are described as words without spaces:
 *
 * <pre>
 * CMAP(u|s;HOST:PORT,...)             unsolicited (u) or solicited (s) connectivity map
 * QUIESCE(ID,...)  RESUME(ID,...)      segments (proxy ids on an importer, segment ids on the home)
 * HCTXT_DOWN(HOST:PORT;CONTEXT;ID,...) RCTXT_DOWN(HOST:PORT;CONTEXT;ID,...)
 * </pre>
 * and any other event by its type. Commands:
 * <pre>
 * events-until PREFIX MILLIS -> EVENTS e1 e2 ...     (every event taken and returned DONE, up to the first that starts with PREFIX)
 *                           -> NO-EVENT e1 e2 ...    (TYPE did not come within MILLIS)
 * events-drain MILLIS       -> EVENTS e1 e2 ...      (what comes while none is missing for MILLIS; at most 100)
 * reconf-timeout MILLIS     -> OK                    (CMI_CTL_RECONF_TOUT)
 * timed-get ID OFF          -> TIMED ms VALUE v | TIMED ms ACCESS_ERROR KIND
 * seg-state ID              -> STATE state
 * cmap-get ID               -> OK                    (ctlNodeCmapGet: the map comes as an event)
 * </pre>
 */
final class EventCommands {
    private EventCommands() {
    }

    /** @return whether {@code command} is one of these commands */
    static boolean handles(String command) {
        return switch (command) {
            case "events-until", "events-drain", "reconf-timeout", "timed-get", "seg-state", "cmap-get" -> true;
            default -> false;
        };
    }

    /**
     * Runs one command.
     *
     * @param ctx the worker's context
     * @param a the command's words
     * @param mapping the worker's mapping of a segment id
     * @return the reply
     */
    static String execute(CmiContext ctx, String[] a, Function<String, CmiMapping> mapping) {
        return switch (a[0]) {
            case "events-until" -> eventsUntil(ctx, a[1], Long.parseLong(a[2]));
            case "events-drain" -> "EVENTS " + String.join(" ", drain(ctx, Long.parseLong(a[1])));
            case "reconf-timeout" -> {
                ctx.ctlReconfTimeout(Duration.ofMillis(Long.parseLong(a[1])));
                yield "OK";
            }
            case "timed-get" -> {
                CmiMapping m = mapping.apply(a[1]);
                long start = System.nanoTime();
                String what;
                try {
                    ctx.rmb();
                    what = "VALUE " + m.getLong(Long.parseLong(a[2]));
                } catch (CmiAccessException e) {
                    what = "ACCESS_ERROR " + e.accessError();
                }
                yield "TIMED " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " " + what;
            }
            case "seg-state" -> "STATE " + ctx.segStatus(ctx.segFromId(Long.parseLong(a[1]))).state();
            case "cmap-get" -> {
                ctx.ctlNodeCmapGet(Long.parseLong(a[1]));
                yield "OK";
            }
            default -> throw new IllegalArgumentException(a[0]);
        };
    }

    private static String eventsUntil(CmiContext ctx, String type, long millis) {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - deadline < 0) {
            CmiEvent e = ctx.evtGet(Duration.ofMillis(200));
            if (e == null) {
                continue;
            }
            ctx.evtRet(e, EventReturn.DONE);
            String d = describe(e);
            seen.add(d);
            if (d.startsWith(type)) {
                return "EVENTS " + String.join(" ", seen);
            }
        }
        return "NO-EVENT " + String.join(" ", seen);
    }

    private static List<String> drain(CmiContext ctx, long graceMillis) {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            CmiEvent e = ctx.evtGet(Duration.ofMillis(graceMillis));
            if (e == null) {
                break;
            }
            ctx.evtRet(e, EventReturn.DONE);
            seen.add(describe(e));
        }
        return seen;
    }

    /**
     * @param e an event
     * @return its description, one word
     */
    static String describe(CmiEvent e) {
        return switch (e) {
            case ConnectivityMap m -> "CMAP(" + (m.solicited() ? "s" : "u") + ";"
                + m.disconnected().stream().map(EventCommands::address).collect(Collectors.joining(",")) + ")";
            case Quiesce q -> "QUIESCE(" + ids(q.segments()) + ")";
            case Resume r -> "RESUME(" + ids(r.segments()) + ")";
            case HomeContextDown d -> "HCTXT_DOWN(" + address(d.node()) + ";" + d.contextId() + ";" + ids(d.segments()) + ")";
            case RemoteContextDown d -> "RCTXT_DOWN(" + address(d.node()) + ";" + d.contextId() + ";" + ids(d.segments()) + ")";
            default -> e.type().name();
        };
    }

    private static String address(NodeAddress a) {
        if (a instanceof NodeAddressImpl n) {
            return n.host() + ":" + n.port();
        }
        return String.valueOf(a);
    }

    private static String ids(List<CmiSegment> segments) {
        return segments.stream().map(s -> Long.toString(s.id())).collect(Collectors.joining(","));
    }
}
