package io.softcmi.vmmc;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * vmmc_Spawn: a new JVM running a main class of this class path, for a host of the session. The
 * child joins the same session with {@code VMMCHOST} set to the host, the pid the parent chose
 * (registered before the start, so the caller may import from it at once), {@code VMMCPARENT},
 * and {@code SOFTCMI_NODE} set to the host's node directory when {@code VMMCHOSTS} names one.
 * Its output goes to {@code VMMC_<host>.<pid>} in the output directory. All hosts must be
 * reachable from this machine's file system (local daemons); the daemon does not start processes.
 */
final class Spawner {
    private Spawner() {
    }

    static VmmcPid spawn(Vmmc v, String mainClass, String[] argv, VmmcNode node) {
        int pid = v.directory.registerNext(node.name());
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(argv));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.put("VMMCSESSION", v.session.name());
        env.put("VMMCHOSTS", v.session.hostsSetting());
        env.put("VMMCHOST", node.name());
        env.put("VMMCPID", Integer.toString(pid));
        env.put("VMMCPARENT", v.myHostName() + ":" + v.myPid().value());
        env.put("VMMCSHARE", v.session.share().toString());
        env.put("VMMCOUTDIR", v.session.outDir().toString());
        String runGroup = VmmcSession.setting("VMMCRUNGROUP");
        if (runGroup != null) {
            env.put("VMMCRUNGROUP", runGroup);
        }
        v.session.nodeDir(node).ifPresentOrElse(d -> env.put("SOFTCMI_NODE", d), () -> { });
        try {
            Files.createDirectories(v.session.outDir());
            File log = v.session.outDir().resolve("VMMC_" + node.name() + "." + pid).toFile();
            pb.redirectErrorStream(true).redirectOutput(log);
            Process child = pb.start();
            v.children.add(child);
            String run = runGroup;
            if (run != null && !run.isBlank()) {
                new io.softcmi.vmmc.cluster.SessionStore(v.session.share()).recordProcess(v.session.name(),
                    v.session.outDir(), Integer.parseInt(run.trim()), node.name(), pid, child.pid());
            }
        } catch (IOException e) {
            v.directory.unregister(node.name(), pid);
            throw new VmmcException(VmmcResult.NO_SUCH_PROCESS, "cannot start " + mainClass + ": " + e.getMessage());
        }
        return new VmmcPid(pid);
    }
}
