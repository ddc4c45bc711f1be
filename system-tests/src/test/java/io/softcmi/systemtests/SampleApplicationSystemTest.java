package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/hello-app}, an application outside the reactor, builds against
 * {@code io.softcmi:softcmi-cmi} by its coordinates and runs. The softcmi artifacts of this build
 * go into an isolated local repository in a temporary directory (what {@code ./mvnw install}
 * would put in {@code ~/.m2}; the shared one is never written), chained in front of the build's
 * own local repository (Maven's {@code maven.repo.local.tail}) for the plugins, offline.
 */
class SampleApplicationSystemTest {
    @TempDir
    Path tmp;

    private static void copy(Path from, Path to) throws Exception {
        assertTrue(Files.isRegularFile(from), "not built: " + from);
        Files.createDirectories(to.getParent());
        Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Lays out what {@code mvn install} of the parent, wire, cmi and node puts in a repository. */
    private static void install(Path source, Path repo, String version) throws Exception {
        Path base = repo.resolve("io/softcmi");
        copy(source.resolve("pom.xml"), base.resolve("softcmi-parent/" + version + "/softcmi-parent-" + version + ".pom"));
        for (String m : List.of("wire", "cmi", "node")) {
            Path dir = base.resolve("softcmi-" + m + "/" + version);
            copy(source.resolve(m + "/pom.xml"), dir.resolve("softcmi-" + m + "-" + version + ".pom"));
            copy(source.resolve(m + "/target/softcmi-" + m + "-" + version + ".jar"),
                dir.resolve("softcmi-" + m + "-" + version + ".jar"));
        }
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path rel = from.relativize(p);
                if (rel.startsWith("target")) {
                    continue;
                }
                Path dest = to.resolve(rel.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(p, dest);
                }
            }
        }
    }

    private static String run(List<String> command, Path dir, Path log, Duration limit) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        if (!p.waitFor(Deadline.scaled(limit).toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            fail(command + " did not finish within " + limit + ":\n" + Files.readString(log));
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), command + ":\n" + out);
        return out;
    }

    @Test
    void applicationOutsideTheReactorBuildsAgainstTheLibraryByCoordinatesAndRuns() throws Exception {
        Path source = Path.of(System.getProperty("softcmi.source.root")).toRealPath();
        String version = System.getProperty("softcmi.version");
        Path repo = tmp.resolve("repo");
        install(source, repo, version);
        Path app = tmp.resolve("hello-app");
        copyTree(source.resolve("examples/hello-app"), app);

        List<String> mvn = new ArrayList<>(List.of(source.resolve("mvnw").toString(), "-B", "-q", "-o",
            "-Dmaven.repo.local=" + repo, "-Dsoftcmi.version=" + version, "package"));
        String tail = System.getProperty("softcmi.maven.repo");
        if (tail != null && !tail.isBlank()) {
            mvn.add("-Dmaven.repo.local.tail=" + tail);
        }
        run(mvn, app, tmp.resolve("mvn.log"), Duration.ofMinutes(5));
        Path lib = app.resolve("target/lib");
        assertTrue(Files.isRegularFile(lib.resolve("softcmi-cmi-" + version + ".jar")), "softcmi-cmi not resolved");
        assertTrue(Files.isRegularFile(lib.resolve("softcmi-wire-" + version + ".jar")), "softcmi-wire not resolved");

        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String out = run(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
            app.resolve("target/hello-cmi.jar") + ":" + lib + "/*", "example.HelloCmi"), app, tmp.resolve("app.log"),
            Duration.ofMinutes(2));
        assertTrue(out.contains("cas saw 41, now 42"), out);
    }
}
