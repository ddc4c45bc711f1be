package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.SmiError;
import java.lang.foreign.MemorySegment;

/**
 * {@code SMI_Send}, {@code SMI_Isend}, {@code SMI_Send_wait}, {@code SMI_Recv},
 * {@code SMI_Sendrecv} (manual §10): one message slot per (sender, receiver) pair in the
 * receiver's control segment ({@code SEQ}, {@code LEN}, 56 data bytes). The sender writes data
 * and length, then posts the new {@code SEQ}; the receiver waits for it on its own memory, reads
 * and posts how many it consumed into the sender's {@code MSG_ACK} word, where the sender waits.
 * Both waits name their partner to the waker: a wait whose partner entered {@code SMI_Finalize}
 * and whose word is still short fails with {@code OTHER} ({@link Departures}); a message or read
 * posted before the partner's departure is still taken.
 *
 * <p>Threads of one process may send and receive at once: a send to one process holds that
 * destination's send lock from its check of the previous message to its wait for this one, and a
 * receive holds its source's receive lock, so two threads never share a slot or a count (one
 * waits for the other's message to be read); calls to different processes do not wait for
 * each other.
 */
public final class Messages {
    /** {@code SMI_MP_MAXDATA}: 64 bytes less two ints. */
    public static final int MAXDATA = 56;
    private static final long SEQ = 0;
    private static final long LEN = 8;
    private static final long DATA = 16;

    private final Job job;
    /** Messages posted to each process; guarded by {@code sendLocks[dest]}. */
    private final long[] sent;
    /** Messages taken from each process; guarded by {@code recvLocks[src]}. */
    private final long[] received;
    private final Object[] sendLocks;
    private final Object[] recvLocks;

    /** @param job the job */
    public Messages(Job job) {
        this.job = job;
        this.sent = new long[job.size()];
        this.received = new long[job.size()];
        this.sendLocks = locks(job.size());
        this.recvLocks = locks(job.size());
    }

    private static Object[] locks(int n) {
        Object[] l = new Object[n];
        for (int i = 0; i < n; i++) {
            l[i] = new Object();
        }
        return l;
    }

    private static void checkCount(byte[] buf, int count) {
        if (buf == null || count < 0 || count > MAXDATA || count > buf.length) {
            throw Errors.fail(SmiError.PARAM, "message of " + count + " bytes (at most SMI_MP_MAXDATA = " + MAXDATA
                + " and the buffer's length)");
        }
    }

    private long acked(int dest) {
        job.context().rmb();
        return job.ownControl().map().getLong(Layout.CTRL_MSG_ACK + 8L * dest);
    }

    /**
     * {@code SMI_Isend}.
     *
     * @param buf data
     * @param count bytes
     * @param dest receiver
     */
    public void isend(byte[] buf, int count, int dest) {
        checkCount(buf, count);
        Errors.checkRank(dest, job.size(), "dest");
        synchronized (sendLocks[dest]) {
            post(buf, count, dest);
        }
    }

    /** Writes the message into {@code dest}'s slot and posts it; under {@code sendLocks[dest]}. */
    private void post(byte[] buf, int count, int dest) {
        if (acked(dest) < sent[dest]) {
            throw Errors.fail(SmiError.PENDING, "the previous message to process " + dest + " is not read yet");
        }
        CmiMapping to = job.control(dest);
        long slot = Layout.CTRL_MSG + (long) Layout.MSG_SLOT * job.rank();
        to.putLong(slot + LEN, count);
        if (count > 0) {
            to.put(slot + DATA, MemorySegment.ofArray(buf).asSlice(0, count));
        }
        job.context().wmb();
        job.waker().post(to, slot + SEQ, ++sent[dest]);
    }

    /**
     * {@code SMI_Send_wait}: waits until {@code dest} read the last message.
     *
     * @param dest receiver
     * @throws io.softcmi.smi.SmiException {@code OTHER} if {@code dest} entered
     *         {@code SMI_Finalize} without reading it
     */
    public void sendWait(int dest) {
        Errors.checkRank(dest, job.size(), "dest");
        long want;
        synchronized (sendLocks[dest]) {
            want = sent[dest];
        }
        awaitRead(dest, want);
    }

    /** Waits until {@code dest} read the previous message, then posts this one; under {@code sendLocks[dest]}. */
    private void postAfterPrevious(byte[] buf, int count, int dest) {
        if (sent[dest] > 0) {
            awaitRead(dest, sent[dest]);
        }
        post(buf, count, dest);
    }

    private void awaitRead(int dest, long want) {
        job.waker().await(Layout.CTRL_MSG_ACK + 8L * dest, v -> v >= want, dest);
    }

    /**
     * {@code SMI_Send}: {@code isend}, then {@code sendWait}.
     *
     * @param buf data
     * @param count bytes
     * @param dest receiver
     */
    public void send(byte[] buf, int count, int dest) {
        checkCount(buf, count);
        Errors.checkRank(dest, job.size(), "dest");
        synchronized (sendLocks[dest]) {
            postAfterPrevious(buf, count, dest);
            awaitRead(dest, sent[dest]);
        }
    }

    /**
     * {@code SMI_Recv}.
     *
     * @param buf where the data goes
     * @param count bytes expected
     * @param src sender
     * @throws io.softcmi.smi.SmiException {@code OTHER} if {@code src} entered
     *         {@code SMI_Finalize} and no message of it is left
     */
    public void recv(byte[] buf, int count, int src) {
        checkCount(buf, count);
        Errors.checkRank(src, job.size(), "src");
        synchronized (recvLocks[src]) {
            take(buf, count, src);
        }
    }

    /** Waits for {@code src}'s next message, copies it and acknowledges it; under {@code recvLocks[src]}. */
    private void take(byte[] buf, int count, int src) {
        long slot = Layout.CTRL_MSG + (long) Layout.MSG_SLOT * src;
        long want = received[src] + 1;
        job.waker().await(slot + SEQ, v -> v >= want, src);
        CmiMapping own = job.ownControl().map();
        int len = (int) Math.min(count, own.getLong(slot + LEN));
        if (len > 0) {
            own.get(slot + DATA, MemorySegment.ofArray(buf).asSlice(0, len));
        }
        received[src] = want;
        job.waker().post(job.control(src), Layout.CTRL_MSG_ACK + 8L * job.rank(), want);
    }

    /**
     * {@code SMI_Sendrecv}: {@code isend}, {@code recv}, {@code sendWait}.
     *
     * @param s data to send
     * @param r where the received data goes
     * @param count bytes each way
     * @param peer the other process
     */
    public void sendrecv(byte[] s, byte[] r, int count, int peer) {
        checkCount(s, count);
        checkCount(r, count);
        Errors.checkRank(peer, job.size(), "peer");
        synchronized (sendLocks[peer]) {
            postAfterPrevious(s, count, peer);
            recv(r, count, peer);
            awaitRead(peer, sent[peer]);
        }
    }
}
