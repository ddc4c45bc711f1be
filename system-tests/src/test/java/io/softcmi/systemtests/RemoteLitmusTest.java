package io.softcmi.systemtests;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The message-passing litmus test across nodes (issue 3, "Tests"; cmi(7) memory ordering): a
 * writer on one node does {@code data = i; wmb; flag = i}, a reader on another node does
 * {@code flag; rmb; data}. Observing {@code flag == i} with {@code data < i} is forbidden; it must
 * never happen in {@value #TRIALS} trials.
 *
 * <p>The writer publishes messages {@code 1, 2, 3, ...} as fast as it can; the reader checks every
 * {@code (flag, data)} pair it reads, and a trial is a read that finds a message it had not seen
 * before (so every trial races a fresh store of the flag against its data). After
 * {@value #TRIALS} trials the reader tells the writer to stop. Both sides run in worker processes,
 * {@link RemoteWorkers} {@code mp-write} and {@code mp-read}; every loop there is bounded in time
 * as well as count. Three placements: the home writes through its own mapping and an importer
 * reads; one importer writes and another reads; an importer writes and the home reads locally.
 */
@Timeout(150)
class RemoteLitmusTest {
    private static final int TRIALS = 10_000;
    private static final long PAGE = 4096;

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClientProcess a;
    private static ClientProcess b;
    private static ClientProcess c;
    private static String addressB;
    private static String addressC;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B", "C");
        List<ClientProcess> workers = cluster.clients(nodes.get(0), nodes.get(1), nodes.get(2));
        a = workers.get(0);
        b = workers.get(1);
        c = workers.get(2);
        addressB = b.expect("node", "NODE");
        addressC = c.expect("node", "NODE");
    }

    /** Ids of one fresh segment: on A (its creator's mapping), and of its imports on B and C. */
    private record Litmus(long onA, long onB, long onC) {
    }

    private static Litmus freshSegment() {
        long id = Long.parseLong(a.expect("create " + PAGE, "SEGMENT"));
        a.expect("attach " + id, "ATTACHED");
        String handle = a.expect("export " + id, "HANDLE");
        String tokenB = a.expect("token " + id + " " + addressB + " READ,WRITE,ATOMIC", "TOKEN");
        String tokenC = a.expect("token " + id + " " + addressC + " READ,WRITE,ATOMIC", "TOKEN");
        return new Litmus(id, importAndAttach(b, handle, tokenB), importAndAttach(c, handle, tokenC));
    }

    private static long importAndAttach(ClientProcess w, String handle, String token) {
        long proxy = Long.parseLong(w.expect("import " + handle, "PROXY").split(" ")[0]);
        w.expect("set-token " + proxy + " " + token, "OK");
        w.expect("attach " + proxy, "ATTACHED");
        return proxy;
    }

    @Test
    void shouldNeverSeeTheFlagWithoutTheDataWhenTheHomeWritesAndAnImporterReads() {
        Litmus l = freshSegment();
        run(a, l.onA, b, l.onB);
    }

    @Test
    void shouldNeverSeeTheFlagWithoutTheDataWhenOneImporterWritesAndAnotherReads() {
        Litmus l = freshSegment();
        run(b, l.onB, c, l.onC);
    }

    @Test
    void shouldNeverSeeTheFlagWithoutTheDataWhenAnImporterWritesAndTheHomeReads() {
        Litmus l = freshSegment();
        run(c, l.onC, a, l.onA);
    }

    private static void run(ClientProcess writer, long writerSegment, ClientProcess reader, long readerSegment) {
        reader.send("mp-read " + readerSegment + " " + TRIALS);
        writer.send("mp-write " + writerSegment);
        String read = reader.awaitReply(Duration.ofSeconds(100));
        String written = writer.awaitReply(Duration.ofSeconds(20));
        System.out.println("message passing " + writer.name() + " -> " + reader.name() + ": writer " + written
            + ", reader " + read + " (trials observations forbidden lastFlag)");
        assertTrue(read.startsWith("OUTCOMES "), () -> "reader: " + read);
        assertTrue(written.startsWith("DONE "), () -> "writer: " + written);
        String[] outcomes = read.split(" ");
        assertEquals(0, Long.parseLong(outcomes[3]), () -> "flag seen without its data: " + read);
        assertEquals(TRIALS, Long.parseLong(outcomes[1]), "trials");
        assertTrue(Long.parseLong(outcomes[4]) >= TRIALS, "the reader saw a new message in every trial");
        assertTrue(Long.parseLong(written.split(" ")[1]) >= Long.parseLong(outcomes[4]), "the writer wrote what was read");
    }
}
