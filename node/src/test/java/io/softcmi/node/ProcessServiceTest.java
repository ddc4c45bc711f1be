package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessServiceTest {
    private final ProcessService service = new ProcessService("/tmp/node-dir");

    @AfterEach
    void endAll() {
        service.shutdown();
    }

    private long[] waitExited(long pid) throws InterruptedException {
        for (int i = 0; i < 600; i++) { // bounded: 60 s
            long[] s = ((ControlMessage.LongsValue) service.status(new ProcessMessage.ProcStatus(pid))).values();
            if (s[1] == 0) {
                return s;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("process " + pid + " did not exit");
    }

    @Test
    void shouldRunACommandWithItsEnvironmentAndWorkingDirectoryAndRecordItsExitCode(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("out.log");
        long[] started = ((ControlMessage.LongsValue) service.spawn(new ProcessMessage.ProcSpawn("g", "first",
            List.of("/bin/sh", "-c", "echo $GREETING; pwd; echo $SOFTCMI_NODE; exit 3"), List.of("GREETING=hello"), dir.toString(),
            log.toString(), log.toString()))).values();
        assertEquals(1, started[0]);
        assertTrue(started[1] > 0);
        long[] s = waitExited(1);
        assertEquals(3, s[2]);
        assertEquals(List.of("hello", dir.toRealPath().toString(), "/tmp/node-dir"), Files.readAllLines(log));
        ControlMessage.Table t = service.table();
        assertEquals(List.of("g", "1", Long.toString(started[1]), "first", "exited", "3"), t.rows().getFirst().subList(0, 6));
    }

    @Test
    void shouldKillOneGroupAndLeaveTheOthers() throws Exception {
        for (String g : List.of("a", "a", "b")) {
            service.spawn(new ProcessMessage.ProcSpawn(g, g, List.of("/bin/sleep", "60"), List.of(), "", "", ""));
        }
        assertEquals(2, ((ControlMessage.LongValue) service.kill(new ProcessMessage.ProcKill("a", 0))).value());
        waitExited(1);
        waitExited(2);
        long[] b = ((ControlMessage.LongsValue) service.status(new ProcessMessage.ProcStatus(3))).values();
        assertEquals(1, b[1]);
        assertEquals("killed", service.table().rows().get(0).get(4));
        assertEquals("running", service.table().rows().get(2).get(4));
        assertEquals(1, ((ControlMessage.LongValue) service.kill(new ProcessMessage.ProcKill("b", 3))).value());
        waitExited(3);
    }

    @Test
    void shouldRefuseAnUnstartableCommandAndAnUnknownPid() {
        assertThrows(NodeException.class, () -> service.spawn(new ProcessMessage.ProcSpawn("g", "x",
            List.of("/nonexistent/program"), List.of(), "", "", "")));
        assertThrows(NodeException.class, () -> service.status(new ProcessMessage.ProcStatus(99)));
    }

    @Test
    void shouldKeepRecordsAndHandOutCounters() {
        NodeRegistry r = new NodeRegistry();
        r.put(new ProcessMessage.RegPut("session", "test", List.of("user=alice", "hosts=n1,n2"), true));
        assertThrows(NodeException.class,
            () -> r.put(new ProcessMessage.RegPut("session", "test", List.of("user=bob"), true)));
        ControlMessage.Table t = (ControlMessage.Table) r.get(new ProcessMessage.RegGet("session", "test"));
        assertEquals(List.of("user", "hosts"), t.columns());
        assertEquals(List.of("alice", "n1,n2"), t.rows().getFirst());
        assertEquals(List.of("SESSION", "USER", "HOSTS"), r.table("session", "SESSION").columns());
        assertArrayEquals(new long[] {1, 2}, new long[] {
            ((ControlMessage.LongValue) r.next(new ProcessMessage.RegNext("run", "test"))).value(),
            ((ControlMessage.LongValue) r.next(new ProcessMessage.RegNext("run", "test"))).value()});
        assertEquals(1, ((ControlMessage.LongValue) r.delete(new ProcessMessage.RegDelete("session", "test"))).value());
        assertTrue(((ControlMessage.Table) r.get(new ProcessMessage.RegGet("session", "test"))).rows().isEmpty());
    }
}
