package io.softcmi.node;

/**
 * Which I/O loop should serve a data connection, from the loop its packets arrive on
 * ({@link LoopCpus#loopOf}) and whether its client may be polling for replies
 * (architecture.md §7.5, "Which loop serves a connection"; measured in benchmarks.md, "Fan-in:
 * each connection served on the core its packets arrive on"):
 * <ul>
 *   <li>when nobody polls (the cores are busy, or as many connections are active as there are
 *       cores), the loop on the core the packets arrive on: a reply then wakes its reader on the
 *       core it runs on;</li>
 *   <li>when the client may poll, any loop on another core, so that the client's poll and the
 *       loop do not share one: the connection stays where it is if it is there already, else it
 *       goes to the least loaded other loop.</li>
 * </ul>
 */
final class SteeringRule {
    private SteeringRule() {
    }

    /**
     * @param current the loop that serves the connection now
     * @param arrives the loop on the core its packets arrive on, or -1 when unknown
     * @param clientMayPoll whether its client may be polling (nobody is kept from polling)
     * @param loads connections per loop, by index
     * @return the loop that should serve it ({@code current} to leave it where it is)
     */
    static int choose(int current, int arrives, boolean clientMayPoll, int[] loads) {
        if (arrives < 0) {
            return current;
        }
        if (!clientMayPoll) {
            return arrives;
        }
        if (arrives != current) {
            return current;
        }
        int best = current;
        for (int i = 0; i < loads.length; i++) {
            if (i != arrives && (best == current || loads[i] < loads[best])) {
                best = i;
            }
        }
        return best;
    }
}
