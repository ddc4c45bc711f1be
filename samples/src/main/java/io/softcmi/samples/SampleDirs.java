package io.softcmi.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the multi-node samples set up before starting daemons (a private directory and a cluster
 * key) and remove after them.
 */
final class SampleDirs {
    private SampleDirs() {
    }

    /**
     * @param prefix the directory name's prefix
     * @return a new temporary directory only the owner may use (0700)
     * @throws IOException if it cannot be made
     */
    static Path privateTempDir(String prefix) throws IOException {
        return Files.createTempDirectory(prefix, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /**
     * Writes a new random 32-byte cluster key to {@code dir/cluster.key}, mode 0600 (as {@code cmid} requires).
     *
     * @param dir the directory
     * @return the key file
     * @throws IOException if it cannot be written
     */
    static Path newClusterKey(Path dir) throws IOException {
        Path key = dir.resolve("cluster.key");
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        Files.write(key, k);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        return key;
    }

    /**
     * Deletes {@code p} and everything under it, as far as it can: what is left of a temporary
     * directory (a daemon may still be removing its own files) is harmless.
     *
     * @param p a file or directory; nothing happens if it is null or absent
     */
    static void deleteQuietly(Path p) {
        if (p == null || !Files.exists(p)) {
            return;
        }
        try (Stream<Path> files = Files.walk(p)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort
        }
    }
}
