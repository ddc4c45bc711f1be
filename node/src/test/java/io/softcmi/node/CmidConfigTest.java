package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cmid --config FILE}: every option from a file, in three line forms; the command line wins. */
class CmidConfigTest {
    @TempDir
    Path tmp;

    @Test
    void everyLineFormReadsTheSameOptions() throws Exception {
        Path conf = tmp.resolve("cmid.conf");
        Files.writeString(conf, """
            # a comment
            ! another
            dir = %s
            name: n1
            --listen 127.0.0.1:7001
            memory    1048576
            io-threads=2
            ticket-lifetime = 60
            metrics = 127.0.0.1:0

            """.formatted(tmp.resolve("node")));
        NodeConfig c = Cmid.parse(new String[] {"--config", conf.toString()});
        assertEquals(tmp.resolve("node"), c.directory());
        assertEquals("n1", c.name());
        assertEquals("127.0.0.1", c.listenHost());
        assertEquals(7001, c.listenPort());
        assertEquals(1048576, c.memoryBytes());
        assertEquals(2, c.ioThreads());
        assertEquals(60_000, c.ticketLifetimeMs());
        assertEquals("127.0.0.1", c.metricsHost());
        assertEquals(0, c.metricsPort());
    }

    @Test
    void commandLineAfterTheFileOverridesIt() throws Exception {
        Path conf = tmp.resolve("cmid.conf");
        Files.writeString(conf, "dir=" + tmp.resolve("a") + "\nname=a\n");
        NodeConfig c = Cmid.parse(new String[] {"--config=" + conf, "--name", "b"});
        assertEquals("b", c.name());
        assertEquals(tmp.resolve("a"), c.directory());
    }

    @Test
    void revokeDrainIsTwoSecondsUnlessGivenWithinItsBounds() {
        String dir = tmp.resolve("a").toString();
        assertEquals(2000, Cmid.parse(new String[] {"--dir", dir}).revokeDrainMs());
        assertEquals(250, Cmid.parse(new String[] {"--dir", dir, "--revoke-drain", "250"}).revokeDrainMs());
        assertThrows(IllegalArgumentException.class, () -> Cmid.parse(new String[] {"--dir", dir, "--revoke-drain", "0"}));
        assertThrows(IllegalArgumentException.class, () -> Cmid.parse(new String[] {"--dir", dir, "--revoke-drain", "soon"}));
    }

    @Test
    void aClusterKeyFileMustGrantNothingToGroupOrOthers() throws Exception {
        String dir = tmp.resolve("a").toString();
        Path key = tmp.resolve("cluster.key");
        Files.write(key, new byte[32]);
        for (String mode : List.of("rw-r-----", "rw--w----", "rw-----w-", "rwx------")) {
            Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cmid.parse(new String[] {"--dir", dir, "--cluster-key", key.toString()}), mode);
            assertTrue(e.getMessage().contains("must grant nothing to group or others"), mode + ": " + e.getMessage());
        }
        for (String mode : List.of("rw-------", "r--------")) {
            Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
            assertEquals(key, Cmid.parse(new String[] {"--dir", dir, "--cluster-key", key.toString()}).clusterKeyFile(), mode);
        }
    }

    @Test
    void peerProcessesAreOffUnlessSaidYes() {
        String dir = tmp.resolve("a").toString();
        assertEquals(false, Cmid.parse(new String[] {"--dir", dir}).peerProcesses());
        assertEquals(true, Cmid.parse(new String[] {"--dir", dir, "--peer-processes", "yes"}).peerProcesses());
        assertThrows(IllegalArgumentException.class, () -> Cmid.parse(new String[] {"--dir", dir, "--peer-processes", "maybe"}));
    }

    @Test
    void ipv6ListenAddressKeepsItsColons() throws Exception {
        Path conf = tmp.resolve("cmid.conf");
        Files.writeString(conf, "dir " + tmp.resolve("a") + "\nlisten = [::1]:7001\n");
        assertEquals(List.of("--dir", tmp.resolve("a").toString(), "--listen", "[::1]:7001"), Cmid.readConfig(conf));
    }

    @Test
    void badFilesAreRefusedWithTheirLine() throws Exception {
        Path conf = tmp.resolve("bad.conf");
        Files.writeString(conf, "dir=/x\nbogus-option 3\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Cmid.parse(new String[] {"--config", conf.toString()}));
        assertTrue(e.getMessage().contains("unknown option --bogus-option"), e.getMessage());
        Files.writeString(conf, "listen\n");
        e = assertThrows(IllegalArgumentException.class, () -> Cmid.readConfig(conf));
        assertTrue(e.getMessage().contains("bad.conf:1"), e.getMessage());
        Files.writeString(conf, "config = other.conf\n");
        assertThrows(IllegalArgumentException.class, () -> Cmid.readConfig(conf));
        assertThrows(IllegalArgumentException.class,
            () -> Cmid.parse(new String[] {"--config", tmp.resolve("missing.conf").toString()}));
    }
}
