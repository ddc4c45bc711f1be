package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanTest {
    private static final Set<String> LOCAL = Set.of("localhost", "127.0.0.1", "myhost");

    @TempDir
    Path tmp;

    private Plan plan(String... args) throws Exception {
        return Plan.of(RunOptions.parse(args), tmp.resolve("cwd"), tmp.resolve("home"), tmp.resolve("smihome").toString(),
            LOCAL);
    }

    @Test
    void shouldMakeRanksOfOneNodeConsecutiveAndSortNodesByName() throws Exception {
        Plan p = plan("-np", "4", "-nodes", "local:b", "local:a", "local:b", "local:a", "Main");
        assertEquals(List.of("local:a", "local:b"), p.nodes().stream().map(Plan.Node::name).toList());
        assertArrayEquals(new int[] {0, 0, 1, 1}, p.procNode());
        assertEquals(Plan.Kind.PSEUDO, p.nodes().get(0).kind());
        assertEquals(2, p.nodes().get(1).firstRank());
    }

    @Test
    void shouldFoldLocalAliasesIntoOneNodeAndKeepOtherHostsRemote() throws Exception {
        Plan p = plan("-np", "3", "-nodes", "localhost", "zeta", "myhost", "Main");
        assertEquals(2, p.nodes().size());
        assertEquals(Plan.Kind.LOCAL, p.nodes().get(0).kind());
        assertEquals(2, p.nodes().get(0).procs());
        assertEquals(Plan.Kind.REMOTE, p.nodes().get(1).kind());
    }

    @Test
    void shouldPutThisMachinesNodesBeforeOtherHostsSoThatRankZeroRunsHere() throws Exception {
        Plan p = plan("-np", "4", "-nodes", "alpha", "local:z", "beta", "localhost", "Main");
        assertEquals(List.of("local:z", "localhost", "alpha", "beta"), p.nodes().stream().map(Plan.Node::name).toList());
        assertEquals(Plan.Kind.PSEUDO, p.nodes().get(p.procNode()[0]).kind());
        assertEquals(Plan.Kind.REMOTE, p.nodes().get(p.procNode()[3]).kind());
    }

    @Test
    void shouldSearchMachineFilesInTheManualsOrder() throws Exception {
        Files.createDirectories(tmp.resolve("cwd"));
        Files.createDirectories(tmp.resolve("home"));
        Files.createDirectories(tmp.resolve("smihome/util"));
        // Nothing anywhere: every process on this machine.
        assertEquals("this machine (no machine file)", plan("-np", "2", "Main").source());
        Files.writeString(tmp.resolve("smihome/util/machines"), "local:s\n");
        assertEquals(tmp.resolve("smihome/util/machines").toString(), plan("Main").source());
        Files.writeString(tmp.resolve("home/.machines"), "local:h\n");
        assertEquals(tmp.resolve("home/.machines").toString(), plan("Main").source());
        Files.writeString(tmp.resolve("cwd/machines"), "local:c1\n\nlocal:c2\n");
        Plan p = plan("Main");
        assertEquals(tmp.resolve("cwd/machines").toString(), p.source());
        assertEquals(2, p.size(), "without -np, one process per host of the file");
        Files.writeString(tmp.resolve("mine"), "local:m\n");
        assertEquals(tmp.resolve("mine").toString(), plan("-machinefile", tmp.resolve("mine").toString(), "Main").source());
        // -nodes beats every file.
        assertEquals("-nodes", plan("-np", "1", "-nodes", "local:x", "Main").source());
    }

    @Test
    void shouldWrapAroundTheHostsWhenMoreProcessesThanHosts() throws Exception {
        Files.createDirectories(tmp.resolve("cwd"));
        Files.writeString(tmp.resolve("cwd/machines"), "local:a\nlocal:b\n");
        Plan p = plan("-np", "5", "Main");
        assertArrayEquals(new int[] {0, 0, 0, 1, 1}, p.procNode());
    }

    @Test
    void shouldRejectBadPseudoHostsAndUnreadableMachineFiles() {
        assertThrows(RunOptions.UsageException.class, () -> plan("-np", "1", "-nodes", "local:", "Main"));
        assertThrows(RunOptions.UsageException.class, () -> plan("-np", "1", "-nodes", "local:a/b", "Main"));
        assertThrows(RunOptions.UsageException.class, () -> plan("-machinefile", "/nonexistent/m", "Main"));
    }
}
