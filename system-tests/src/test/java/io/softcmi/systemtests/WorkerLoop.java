package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiVersion;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The life of a worker process ({@link Workers}, {@link RemoteWorkers}): a hard lifetime limit,
 * {@code Cmi.init}, {@code READY pid}, then one command line in and one reply line (prefixed
 * {@link Workers#REPLY}) out until {@code BYE} or the end of stdin, which closes the context like
 * any process leaving CMI. Failures answer {@code ERROR CODE LASTERROR message} (a
 * {@link CmiException}), {@code ACCESS_ERROR KIND SEGMENT OFFSET} (a {@link CmiAccessException})
 * or {@code EXCEPTION class message}.
 */
final class WorkerLoop {
    private WorkerLoop() {
    }

    /**
     * Runs a worker.
     *
     * @param args the worker's arguments: a name, for logs
     * @param maxLifetimeSeconds the process halts after this long, whatever it is doing
     * @param commands makes the command interpreter for the open context
     * @throws IOException if stdin fails
     */
    static void run(String[] args, long maxLifetimeSeconds,
            BiFunction<PrintStream, CmiContext, Function<String[], String>> commands) throws IOException {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
            StandardCharsets.UTF_8);
        String name = args.length > 0 ? args[0] : "";
        Thread.ofPlatform().daemon().name("worker-lifetime").start(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(maxLifetimeSeconds));
            } catch (InterruptedException e) {
                return;
            }
            out.println("worker " + name + " exceeded its lifetime; halting");
            Runtime.getRuntime().halt(4);
        });
        CmiContext ctx;
        try {
            ctx = Cmi.init(new CmiVersion(1, 1));
            ctx.enable(true); // cmi_enb on the command thread: workers load and store segments
        } catch (CmiException e) {
            out.println(Workers.REPLY + "ERROR " + e.error() + " " + Cmi.lastError() + " " + e.getMessage());
            Runtime.getRuntime().exit(3);
            return;
        }
        out.println(Workers.REPLY + "READY " + ProcessHandle.current().pid());
        Function<String[], String> execute = commands.apply(out, ctx);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            out.println("# " + (line.length() > 120 ? line.substring(0, 120) + "..." : line));
            String reply;
            try {
                reply = execute.apply(line.split("\\s+"));
            } catch (CmiException e) {
                reply = "ERROR " + e.error() + " " + Cmi.lastError() + " " + e.getMessage();
            } catch (CmiAccessException e) {
                reply = "ACCESS_ERROR " + e.accessError() + " " + e.segmentId() + " " + e.offset();
            } catch (RuntimeException e) {
                reply = "EXCEPTION " + e.getClass().getName() + " " + e.getMessage();
            }
            out.println(Workers.REPLY + reply);
            if (reply.equals("BYE")) {
                return;
            }
        }
        // stdin ended: the test that drove us is gone. Leave CMI like any process that exits.
        ctx.close();
    }
}
