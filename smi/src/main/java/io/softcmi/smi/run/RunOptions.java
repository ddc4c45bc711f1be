package io.softcmi.smi.run;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@code smirun} (SMI manual §2.1.2):
 * <pre>
 * smirun [-np N] [-machinefile FILE | -nodes H0 ... HN-1] [-stdout F] [-stderr F] [-stdin F]
 *        [-v] [-t] [-debug] [-nolocal] [-xterm] [-pager] [--] MAIN_CLASS|APP.jar [program args]
 * </pre>
 *
 * @param np the number of processes, or 0 for one per machine-file host
 * @param machineFile the {@code -machinefile}, or null
 * @param nodes the {@code -nodes} hosts, or empty
 * @param stdout the {@code -stdout} file, or null
 * @param stderr the {@code -stderr} file, or null
 * @param stdin the {@code -stdin} file, or null
 * @param verbose {@code -v}
 * @param test {@code -t}: print the commands only
 * @param debug {@code -debug}
 * @param noLocal {@code -nolocal}
 * @param xterm {@code -xterm}
 * @param pager {@code -pager}
 * @param program the main class or jar
 * @param programArgs its arguments
 */
public record RunOptions(int np, String machineFile, List<String> nodes, String stdout, String stderr, String stdin,
        boolean verbose, boolean test, boolean debug, boolean noLocal, boolean xterm, boolean pager, String program,
        List<String> programArgs) {
    /** The usage text. */
    public static final String USAGE = "usage: smirun [-np N] [-machinefile FILE | -nodes H0 ... HN-1] [-stdout F]"
        + " [-stderr F] [-stdin F] [-v] [-t] [-debug] [-nolocal] [-xterm] [-pager] [--] MAIN_CLASS|APP.jar [args]";

    /** Copies the lists. */
    public RunOptions {
        nodes = List.copyOf(nodes);
        programArgs = List.copyOf(programArgs);
    }

    /** A command line smirun cannot run. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message what is wrong */
        public UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments of {@code smirun}
     * @return the options
     * @throws UsageException if they are wrong
     */
    public static RunOptions parse(String[] args) throws UsageException {
        int np = 0;
        String machineFile = null;
        List<String> nodes = new ArrayList<>();
        String out = null;
        String err = null;
        String in = null;
        boolean v = false;
        boolean t = false;
        boolean debug = false;
        boolean noLocal = false;
        boolean xterm = false;
        boolean pager = false;
        int i = 0;
        while (i < args.length) {
            String a = args[i];
            if (a.equals("--")) {
                i++;
                break;
            }
            if (!a.startsWith("-")) {
                break;
            }
            switch (a) {
                case "-np" -> {
                    np = number(value(args, i++, a), a);
                    if (np < 1) {
                        throw new UsageException("-np needs a positive number");
                    }
                }
                case "-machinefile" -> machineFile = value(args, i++, a);
                case "-nodes" -> {
                    if (np == 0) {
                        throw new UsageException("-nodes must come after -np (it takes N host names)");
                    }
                    for (int k = 0; k < np; k++) {
                        nodes.add(value(args, i++, a));
                    }
                }
                case "-stdout" -> out = value(args, i++, a);
                case "-stderr" -> err = value(args, i++, a);
                case "-stdin" -> in = value(args, i++, a);
                case "-v" -> v = true;
                case "-t" -> t = true;
                case "-debug" -> debug = true;
                case "-nolocal" -> noLocal = true;
                case "-xterm" -> xterm = true;
                case "-pager" -> pager = true;
                default -> throw new UsageException("unknown option " + a);
            }
            i++;
        }
        if (i >= args.length) {
            throw new UsageException("no program given");
        }
        List<String> rest = List.of(args).subList(i + 1, args.length);
        return new RunOptions(np, machineFile, nodes, out, err, in, v, t, debug, noLocal, xterm, pager, args[i], rest);
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i + 1 >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[i + 1];
    }

    private static int number(String s, String option) throws UsageException {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number, got " + s);
        }
    }
}
