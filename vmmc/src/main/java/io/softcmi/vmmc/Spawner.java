package io.softcmi.vmmc;

import io.softcmi.vmmc.internal.NodeServices;
import io.softcmi.vmmc.internal.RunControl;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * vmmc_Spawn: a new JVM running a main class of this class path, for a host of the session. The
 * child joins the same session with {@code VMMCHOST} set to the host, the pid the parent chose
 * (registered before the start, so the caller may import from it at once), {@code VMMCPARENT},
 * and {@code SOFTCMI_NODE} set to the host's node directory (by the daemon that starts it). Its
 * output goes to {@code VMMC_<host>.<pid>} in the output directory. When {@code VMMCHOSTS} names
 * the host's node directory, or its node address ({@code HEX_NODE_ID@HOST:PORT}: then through
 * this process's daemon, which forwards the request over its peer connection), the host's
 * daemon starts the child (its process service: the child joins the run
 * group {@code SESSION/VMMCRUNGROUP}, or {@code SESSION/spawn}, outlives this process and is
 * listed by {@code cmiadm runs}); otherwise (no daemon: the embedded node) this process starts it.
 */
final class Spawner {
    private Spawner() {
    }

    /** A spawned child, for {@link Vmmc#close}: wait for it, or end it. */
    interface Child {
        /** @param nanos how long to wait @return whether it has exited */
        boolean waitFor(long nanos) throws InterruptedException;

        /** Ends it. */
        void kill();
    }

    static VmmcPid spawn(Vmmc v, String mainClass, String[] argv, VmmcNode node) {
        int pid;
        try {
            pid = v.directory.registerNext(node.name());
        } catch (java.io.UncheckedIOException | IllegalStateException e) {
            // no pid left on that host, or the session directory cannot be written
            throw new VmmcException(VmmcResult.NO_SUCH_PROCESS, "cannot start " + mainClass + ": " + e.getMessage());
        }
        Map<String, String> vmmc = new LinkedHashMap<>();
        vmmc.put("VMMCSESSION", v.session.name());
        vmmc.put("VMMCHOSTS", v.session.hostsSetting());
        vmmc.put("VMMCHOST", node.name());
        vmmc.put("VMMCPID", Integer.toString(pid));
        vmmc.put("VMMCPARENT", v.myHostName() + ":" + v.myPid().value());
        vmmc.put("VMMCSHARE", v.session.share().toString());
        vmmc.put("VMMCOUTDIR", v.session.outDir().toString());
        String runGroup = VmmcSession.setting("VMMCRUNGROUP");
        if (runGroup != null && !runGroup.isBlank()) {
            vmmc.put("VMMCRUNGROUP", runGroup.trim());
        }
        List<String> cmd = RunControl.javaArgv(mainClass, List.of(argv));
        Path log = v.session.outDir().resolve("VMMC_" + node.name() + "." + pid);
        try {
            Files.createDirectories(v.session.outDir());
            String nodeDir = v.session.nodeDir(node).orElse(null);
            long realPid = nodeDir != null ? viaDaemon(v, nodeDir, runGroup, cmd, vmmc, node, pid, log)
                : locally(v, cmd, vmmc, log);
            if (runGroup != null && !runGroup.isBlank()) {
                RunControl.record(v.session.outDir(), v.session.name(), Long.parseLong(runGroup.trim()), node.name(), pid,
                    realPid);
            }
        } catch (IOException | RuntimeException e) {
            v.directory.unregister(node.name(), pid);
            throw new VmmcException(VmmcResult.NO_SUCH_PROCESS, "cannot start " + mainClass + ": " + e.getMessage());
        }
        return new VmmcPid(pid);
    }

    private static long viaDaemon(Vmmc v, String nodeDir, String runGroup, List<String> cmd, Map<String, String> vmmc,
            VmmcNode node, int pid, Path log) {
        String local = localNodeDir(v);
        String group = RunControl.group(v.session.name(), runGroup == null || runGroup.isBlank() ? "spawn" : runGroup.trim());
        long[] started;
        try (NodeServices d = NodeServices.reach(nodeDir, local, "vmmc-spawn")) {
            started = d.spawn(group, "VMMC_" + node.name() + "." + pid, cmd, RunControl.sessionEnv(vmmc), null, log);
        }
        long logical = started[0];
        v.children.add(new Child() {
            @Override
            public boolean waitFor(long nanos) throws InterruptedException {
                long deadline = System.nanoTime() + nanos;
                try (NodeServices d = NodeServices.reach(nodeDir, local, "vmmc-spawn")) {
                    while (d.status(logical)[1] != 0) {
                        if (System.nanoTime() - deadline >= 0) {
                            return false;
                        }
                        Thread.sleep(50);
                    }
                    return true;
                } catch (RuntimeException daemonGone) {
                    return true; // its daemon ended it
                }
            }

            @Override
            public void kill() {
                try (NodeServices d = NodeServices.reach(nodeDir, local, "vmmc-spawn")) {
                    d.kill(group, logical);
                } catch (RuntimeException daemonGone) {
                    // Nothing left to end.
                }
            }
        });
        return started[1];
    }

    /** The daemon to forward through for a host given by node address: this process's node. */
    private static String localNodeDir(Vmmc v) {
        String p = System.getProperty("softcmi.node");
        if (p != null && !p.isBlank()) {
            return p;
        }
        String e = System.getenv("SOFTCMI_NODE");
        if (e != null && !e.isBlank()) {
            return e;
        }
        return v.session.nodeDir(v.session.me()).filter(l -> !NodeServices.isAddress(l)).orElse(null);
    }

    private static long locally(Vmmc v, List<String> cmd, Map<String, String> vmmc, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        vmmc.forEach((k, val) -> {
            if (val == null) {
                env.remove(k);
            } else {
                env.put(k, val);
            }
        });
        File f = log.toFile();
        pb.redirectErrorStream(true).redirectOutput(f);
        Process child = pb.start();
        v.children.add(new Child() {
            @Override
            public boolean waitFor(long nanos) throws InterruptedException {
                return child.waitFor(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void kill() {
                child.destroyForcibly();
            }
        });
        return child.pid();
    }
}
