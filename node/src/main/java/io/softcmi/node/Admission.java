package io.softcmi.node;

/**
 * The token admission ({@link AccessGate}) of the request a {@link DataConnection} is serving:
 * entered when the request passes its token check ({@link HomeAccess#admit}), left when the
 * request is done ({@link #leave()}). A connection serves one request at a time, so one slot
 * is enough: a request done within its pass leaves before the next is served; a streamed store
 * or a large read, which waits on the client, stays admitted ({@link #holdOnClient()}) until its
 * last byte is in or out, or the connection closes. Loop thread only.
 */
final class Admission {
    private final AccessGate.Holder holder;
    /** The gate entered, or null. */
    private AccessGate gate;
    /** Registered with {@link #gate} as a holder. */
    private boolean holding;

    /** @param holder the connection, cut if a revocation waits too long for it */
    Admission(AccessGate.Holder holder) {
        this.holder = holder;
    }

    /**
     * Enters a token's gate for the current request.
     *
     * @return false if the token was revoked meanwhile (the request is refused)
     */
    boolean enter(AccessGate g) {
        if (gate != null) {
            leave(); // one admission per request: a second check of the same request does not count twice
        }
        if (!g.enter()) {
            return false;
        }
        gate = g;
        return true;
    }

    /** The admitted request goes on waiting for its client: a revocation that waited its bound may cut the connection. */
    void holdOnClient() {
        if (gate != null && !holding) {
            holding = true;
            gate.hold(holder);
        }
    }

    /** The request is done (or the connection closed): leaves the gate, if one was entered. */
    void leave() {
        AccessGate g = gate;
        if (g != null) {
            gate = null;
            if (holding) {
                holding = false;
                g.release(holder);
            }
            g.leave();
        }
    }

    /** @param streaming a streamed store is still arriving (it stays admitted) @see #leave() */
    void leaveUnless(boolean streaming) {
        if (!streaming) {
            leave();
        }
    }

    /** @return whether a request is admitted */
    boolean admitted() {
        return gate != null;
    }
}
