package io.softcmi.cmi.internal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Java Flight Recorder events of the client library, so that {@code jfr print --categories
 * softcmi} or JDK Mission Control show what an application waited on and what failed. Recording
 * costs nothing while no recording is running ({@code shouldCommit} is false). Beyond the spec.
 */
public final class JfrEvents {
    private JfrEvents() {
    }

    /** One call on the control path (the node daemon's socket): import, export, tokens, barriers. */
    @Name("io.softcmi.ControlCall")
    @Label("CMI Control Call")
    @Category({"softcmi", "Control path"})
    @Description("A request to the node daemon and the wait for its reply")
    @StackTrace(false)
    public static final class ControlCall extends Event {
        /** The request's message type. */
        @Label("Request")
        public String request;
        /** The reply's message type, or the CMI error name. */
        @Label("Reply")
        public String reply;
    }

    /** A CMI call that failed with an error code ({@code cmi_get_error}). */
    @Name("io.softcmi.Failure")
    @Label("CMI Failure")
    @Category({"softcmi", "Failures"})
    @Description("A CMI call failed with an error code")
    public static final class Failure extends Event {
        /** The spec's error name. */
        @Label("Error")
        public String error;
        /** The library's message. */
        @Label("Message")
        public String message;
    }

    /** A load, store or atomic on a segment that failed (the spec's SIGSEGV with SEGV_CMI). */
    @Name("io.softcmi.AccessFailure")
    @Label("CMI Access Failure")
    @Category({"softcmi", "Failures"})
    @Description("A load, store or atomic failed with an access error (local or remote)")
    public static final class AccessFailure extends Event {
        /** The spec's access error ({@code si_errno}). */
        @Label("Error")
        public String error;
        /** The segment ({@code si_id}). */
        @Label("Segment")
        public long segmentId;
        /** The offset into the segment ({@code si_addr}). */
        @Label("Offset")
        public long offset;
    }

    /** A CMI event queued for a context ({@code cmi_evt_get} will return it). */
    @Name("io.softcmi.CmiEvent")
    @Label("CMI Event")
    @Category({"softcmi", "Events"})
    @Description("The node delivered a CMI event to a context")
    @StackTrace(false)
    public static final class CmiEventDelivered extends Event {
        /** The event's type. */
        @Label("Type")
        public String type;
    }

    /**
     * One request on a data connection to a home, and the wait for its reply: a remote load,
     * store, CAS or bulk chunk, a notification, and the cache's fills (misses), diffs
     * (write-backs) and acquires (invalidation queries).
     */
    @Name("io.softcmi.RemoteRequest")
    @Label("CMI Remote Request")
    @Category({"softcmi", "Data path"})
    @Description("A request to a home node's data path and the wait for its reply")
    @StackTrace(false)
    public static final class RemoteRequest extends Event {
        /** GET, PUT, CAS, NOTIFY, FILL (a cache miss), DIFF (a write-back) or ACQUIRE. */
        @Label("Operation")
        public String op;
        /** The segment at its home. */
        @Label("Segment")
        public long segmentId;
        /** The offset into the segment. */
        @Label("Offset")
        public long offset;
        /** Bytes read or written (0 for CAS and ACQUIRE). */
        @Label("Bytes")
        @DataAmount
        public long bytes;
        /** OK, the access error, IO (connection lost) or TIMEOUT. */
        @Label("Outcome")
        public String outcome;

        /**
         * @param op a {@code DataProtocol.OP_*} code
         * @return its name
         */
        public static String opName(byte op) {
            return switch (op) {
                case io.softcmi.wire.DataProtocol.OP_GET -> "GET";
                case io.softcmi.wire.DataProtocol.OP_PUT -> "PUT";
                case io.softcmi.wire.DataProtocol.OP_CAS -> "CAS";
                case io.softcmi.wire.DataProtocol.OP_NOTIFY -> "NOTIFY";
                case io.softcmi.wire.DataProtocol.OP_FILL -> "FILL";
                case io.softcmi.wire.DataProtocol.OP_DIFF -> "DIFF";
                case io.softcmi.wire.DataProtocol.OP_ACQUIRE -> "ACQUIRE";
                case io.softcmi.wire.DataProtocol.OP_FORGET -> "FORGET";
                case io.softcmi.wire.DataProtocol.OP_HELLO -> "HELLO";
                case io.softcmi.wire.DataProtocol.OP_PROOF -> "PROOF";
                default -> "OP_" + op;
            };
        }
    }
}
