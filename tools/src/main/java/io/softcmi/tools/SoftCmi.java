package io.softcmi.tools;

import io.softcmi.cmi.Cmi;
import io.softcmi.samples.Demo;
import io.softcmi.wire.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Properties;

/**
 * The Java side of the {@code softcmi} launcher ({@code bin/softcmi}). The launcher answers
 * {@code softcmi classpath} itself; everything else comes here.
 *
 * <pre>
 * softcmi demo      run the Sample Code flow, a two-process exchange, a three-node cluster, SMI and VMMC
 * softcmi version   print the softcmi, CMI API, wire protocol and Java versions
 * softcmi export [--size BYTES] [--value N] [--for SECONDS] FILE   share a segment (see {@link ShareCommands})
 * softcmi import FILE                                             import it on another node
 * </pre>
 * Exit status: 0 on success, 1 if the demo fails, 2 for a usage error.
 */
public final class SoftCmi {
    private static final String USAGE = """
        usage: softcmi classpath | demo | version | export ... FILE | import FILE
          classpath  print the class path an application needs (java -cp "$(softcmi classpath):app.jar" Main)
          demo       run the spec's Sample Code, a two-process exchange, a three-node cluster, SMI and VMMC
          version    print the versions of softcmi, the CMI API, the wire protocol and Java
        """ + ShareCommands.USAGE;

    private SoftCmi() {
    }

    /**
     * Entry point: runs {@link #run(String[], PrintStream, PrintStream)} and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs one {@code softcmi} subcommand.
     *
     * @param args the command line: the subcommand first
     * @param out where output goes
     * @param err where errors and usage go
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length >= 1 && args[0].equals("export")) {
            return ShareCommands.export(java.util.List.of(args).subList(1, args.length), out, err, System.getenv());
        }
        if (args.length >= 1 && args[0].equals("import")) {
            return ShareCommands.importSegment(java.util.List.of(args).subList(1, args.length), out, err, System.getenv());
        }
        if (args.length != 1) {
            err.println(args.length == 0 ? "softcmi: no command given" : "softcmi: too many arguments");
            err.println(USAGE);
            return 2;
        }
        return switch (args[0]) {
            // The nodes the demo runs in this JVM log at WARNING unless SOFTCMI_LOG_LEVEL asks for more.
            case "demo" -> Demo.run(out) ? 0 : 1;
            case "version" -> {
                out.println(versionText());
                yield 0;
            }
            case "classpath" -> {
                // The launcher prints it without starting a JVM; this answers direct java invocations.
                out.println(System.getProperty("java.class.path"));
                yield 0;
            }
            case "help", "--help", "-h" -> {
                out.println(USAGE);
                yield 0;
            }
            default -> {
                err.println("softcmi: unknown command '" + args[0] + "'");
                err.println(USAGE);
                yield 2;
            }
        };
    }

    /**
     * Describes this build.
     *
     * @return a line naming the softcmi version, the CMI API version, the wire protocol version
     *         and the running Java
     */
    public static String versionText() {
        return "softcmi " + version() + " (CMI API " + Cmi.LIBRARY_VERSION.major() + "." + Cmi.LIBRARY_VERSION.minor()
            + ", verno " + Cmi.LIBRARY_VERSION.verno() + "; wire protocol " + Frame.VERSION + "; Java "
            + Runtime.version() + ", " + System.getProperty("java.vm.name") + ")";
    }

    /**
     * The softcmi version this module was built as.
     *
     * @return the Maven project version, or {@code "unknown"} when run from unfiltered classes
     */
    public static String version() {
        try (InputStream in = SoftCmi.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
