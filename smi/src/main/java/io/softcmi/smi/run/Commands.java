package io.softcmi.smi.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command lines {@code smirun} runs: rank JVMs, {@code cmid} daemons, and the wrappers that
 * put them on another host ({@code ssh}, or {@code srun} inside a Slurm allocation) or in an
 * {@code xterm} (with a pager). Pure functions, so that {@code -t} can print them and tests can
 * check them.
 */
public final class Commands {
    private Commands() {
    }

    /**
     * The ranks' extra JVM options from {@code SMI_JAVA_OPTS}: split on blanks; unset, empty or
     * blank means none (not one empty argument, which java takes for the main class).
     *
     * @param value the variable's value, or null
     * @return the options
     */
    public static List<String> jvmOptions(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return List.of(value.strip().split("\\s+"));
    }

    /**
     * A rank's JVM.
     *
     * @param java the java launcher
     * @param classPath the class path (softcmi's jars, plus the application jar if the program is one)
     * @param jvmOptions extra JVM options ({@code SMI_JAVA_OPTS})
     * @param mainClass the main class
     * @param args the program's arguments
     * @return the command
     */
    public static List<String> rank(String java, String classPath, List<String> jvmOptions, String mainClass,
            List<String> args) {
        List<String> c = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        c.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        c.addAll(jvmOptions);
        c.addAll(List.of("-cp", classPath, mainClass));
        c.addAll(args);
        return c;
    }

    /**
     * A {@code cmid} for the job.
     *
     * @param java the java launcher
     * @param classPath a class path holding {@code io.softcmi.node.Cmid}
     * @param dir its node directory
     * @param name its node name
     * @param listen its TCP address ({@code HOST:0} for any port)
     * @param clusterKey the job's cluster key file
     * @param shmDir its segment directory
     * @return the command
     */
    public static List<String> cmid(String java, String classPath, Path dir, String name, String listen, Path clusterKey,
            Path shmDir) {
        List<String> c = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"));
        c.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        c.addAll(List.of("-cp", classPath, "io.softcmi.node.Cmid", "--dir", dir.toString(), "--name", name, "--listen",
            listen, "--cluster-key", clusterKey.toString(), "--shm-dir", shmDir.toString()));
        return List.copyOf(c);
    }

    /**
     * A command on another host: over {@code ssh} ({@code SMI_SSH}, default {@code ssh}, split on
     * blanks), or with {@code srun} on that host of the Slurm allocation. The environment goes
     * through {@code env}, the working directory through {@code cd}.
     *
     * @param host the host
     * @param env variables the command needs
     * @param cwd the directory to run in (the same path on that host)
     * @param cmd the command
     * @param ssh the ssh command
     * @param slurm whether to use {@code srun}
     * @return the local command that runs it there
     */
    public static List<String> remote(String host, Map<String, String> env, Path cwd, List<String> cmd, String ssh,
            boolean slurm) {
        List<String> inner = new ArrayList<>(List.of("env"));
        env.forEach((k, v) -> inner.add(k + "=" + v));
        inner.addAll(cmd);
        if (slurm) {
            List<String> c = new ArrayList<>(List.of("srun", "--nodes=1", "--ntasks=1", "--nodelist=" + host,
                "--chdir=" + cwd));
            c.addAll(inner);
            return c;
        }
        List<String> c = new ArrayList<>(List.of(ssh.strip().split("\\s+")));
        c.add(host);
        c.add("cd " + quote(cwd.toString()) + " && exec " + join(inner));
        return c;
    }

    /**
     * A command in its own terminal window ({@code -xterm}), its output through a pager with
     * {@code -pager}.
     *
     * @param cmd the command
     * @param title the window title
     * @param xterm the terminal command ({@code SMI_XTERM}, {@code XTERM}, default {@code xterm}), split on blanks
     * @param pager the pager ({@code SMI_PAGER}, {@code PAGER}, default {@code less}), or null for none
     * @return the wrapped command
     */
    public static List<String> xterm(List<String> cmd, String title, String xterm, String pager) {
        List<String> c = new ArrayList<>(List.of(xterm.strip().split("\\s+")));
        String body = pager == null ? join(cmd) + "; echo '[process ended: press Enter]'; read _"
            : join(cmd) + " 2>&1 | " + pager;
        c.addAll(List.of("-T", title, "-e", "sh", "-c", body));
        return c;
    }

    /**
     * @param words a command
     * @return it as one {@code sh} command line
     */
    public static String join(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String w : words) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(quote(w));
        }
        return b.toString();
    }

    /**
     * @param s a word
     * @return it quoted for {@code sh} where needed
     */
    public static String quote(String s) {
        if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return s;
        }
        return "'" + s.replace("'", "'\"'\"'") + "'";
    }
}
