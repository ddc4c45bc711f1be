package io.softcmi.node;

import static io.softcmi.node.RevocationFixture.readReply;
import static io.softcmi.node.RevocationFixture.request;
import static io.softcmi.node.RevocationFixture.writeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many remote stores and notifications under one token, from several connections on two I/O
 * loops, while its creator revokes it ({@code tok_del}, {@link AccessGate}). After the reply,
 * nothing changes any more: the segment's words and the creator's notices are what they were
 * when it came; every store acknowledged OK landed and every refused one did not; every
 * notification acknowledged OK was queued. Each notice's delivery takes about 20 us (the
 * creator's queue as seen from a loop under load), which widens the window in which a request
 * admitted before the revocation is still being applied. Outcomes are counted over
 * {@link #ROUNDS} rounds, not timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TokDelRaceTest {
    private static final int ROUNDS = 40;
    private static final int CLIENTS = 4;
    /** Words each client may store to (one per store: a store's word tells whether it landed). */
    private static final int WORDS = 4096;
    /** Requests a client sends before it reads their replies. */
    private static final int BATCH = 8;

    /** What one client was told. */
    private record Outcome(Set<Integer> storesOk, Set<Integer> storesRefused, Set<Long> notificationsOk) {
    }

    @Test
    void nothingAdmittedBeforeTheRevocationLandsAfterItsReply() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            try (RevocationFixture home = new RevocationFixture(new NodeConfig(), 2)) {
                home.onNotice = n -> {
                    long until = System.nanoTime() + 20_000;
                    while (System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                };
                List<CompletableFuture<Outcome>> clients = new ArrayList<>();
                for (int k = 0; k < CLIENTS; k++) {
                    SocketChannel c = home.connect(0, 0);
                    int client = k;
                    CompletableFuture<Outcome> f = new CompletableFuture<>();
                    Thread.ofPlatform().name("client-" + k).start(() -> {
                        try {
                            f.complete(run(c, client));
                        } catch (Throwable t) {
                            f.completeExceptionally(t);
                        }
                    });
                    clients.add(f);
                }
                Thread.sleep(ThreadLocalRandom.current().nextInt(2, 20));
                ControlMessage reply = home.tokDel();
                long[] words = home.data.asSlice(0, 8L * CLIENTS * WORDS).toArray(ValueLayout.JAVA_LONG);
                int notices = home.notices.size();
                assertInstanceOf(ControlMessage.Ok.class, reply);
                List<Outcome> outcomes = new ArrayList<>();
                for (CompletableFuture<Outcome> f : clients) {
                    outcomes.add(f.get(30, TimeUnit.SECONDS));
                }
                Thread.sleep(20);
                String failed = check(home, words, notices, outcomes);
                if (failed != null) {
                    failures.add("round " + round + ": " + failed);
                }
            }
        }
        assertEquals(List.of(), failures, failures.size() + " of " + ROUNDS + " rounds failed");
    }

    /** Stores and notifies in batches until the token is refused (or its words run out). */
    private static Outcome run(SocketChannel c, int client) throws Exception {
        Outcome o = new Outcome(new HashSet<>(), new HashSet<>(), new HashSet<>());
        ByteBuffer batch = ByteBuffer.allocate(2 * BATCH * (DataProtocol.REQUEST_HEADER + 8)).order(ByteOrder.LITTLE_ENDIAN);
        boolean refused = false;
        for (int seq = 0; seq + BATCH <= WORDS && !refused; seq += BATCH) {
            batch.clear();
            for (int i = seq; i < seq + BATCH; i++) {
                long word = (long) client * WORDS + i;
                batch.put(request(DataProtocol.OP_PUT, 2L * i, 8 * word, 8, 0, 8).putLong(i + 1L).flip());
                ByteBuffer n = request(DataProtocol.OP_NOTIFY, 2L * i + 1, 8 * word, word, 0, 0);
                n.put(5, DataProtocol.FLAG_AFTER_OK);
                batch.put(n.flip());
            }
            writeAll(c, batch.flip());
            for (int r = 0; r < 2 * BATCH; r++) {
                RevocationFixture.Reply reply = readReply(c);
                int i = (int) (reply.requestId() / 2);
                boolean ok = reply.status() == DataProtocol.STATUS_OK;
                refused |= !ok;
                if (reply.requestId() % 2 == 1) {
                    if (ok) {
                        o.notificationsOk().add((long) client * WORDS + i);
                    }
                } else {
                    (ok ? o.storesOk() : o.storesRefused()).add(i);
                }
            }
        }
        return o;
    }

    /** @return what went wrong in a round, or null */
    private static String check(RevocationFixture home, long[] wordsAtReply, int noticesAtReply, List<Outcome> outcomes) {
        long[] now = home.data.asSlice(0, 8L * CLIENTS * WORDS).toArray(ValueLayout.JAVA_LONG);
        int changed = 0;
        for (int w = 0; w < now.length; w++) {
            changed += now[w] != wordsAtReply[w] ? 1 : 0;
        }
        List<String> wrong = new ArrayList<>();
        if (changed > 0) {
            wrong.add(changed + " words changed after tok_del replied");
        }
        if (home.notices.size() != noticesAtReply) {
            wrong.add((home.notices.size() - noticesAtReply) + " notices queued after tok_del replied");
        }
        Set<Long> noticed = new HashSet<>();
        for (ControlMessage n : home.notices) {
            noticed.add(((ControlMessage.NotificationNotice) n).value());
        }
        int lost = 0;
        int landedRefused = 0;
        int unnoticed = 0;
        for (int k = 0; k < outcomes.size(); k++) {
            Outcome o = outcomes.get(k);
            for (int i : o.storesOk()) {
                lost += now[k * WORDS + i] != i + 1L ? 1 : 0;
            }
            for (int i : o.storesRefused()) {
                landedRefused += now[k * WORDS + i] != 0 ? 1 : 0;
            }
            for (long word : o.notificationsOk()) {
                unnoticed += noticed.contains(word) ? 0 : 1;
            }
        }
        if (lost + landedRefused + unnoticed > 0) {
            wrong.add(lost + " acknowledged stores missing, " + landedRefused + " refused stores landed, " + unnoticed
                + " acknowledged notifications never queued");
        }
        return wrong.isEmpty() ? null : String.join("; ", wrong);
    }
}
