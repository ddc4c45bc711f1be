package io.softcmi.cmi.internal;

import jdk.jfr.Category;
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
}
