package io.softcmi.tools;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code softcmi export} and {@code softcmi import}: a first import between two nodes without
 * writing a program, for checking a new cluster (docs/deployment.md, "Three hosts").
 *
 * <pre>
 * softcmi export [--size BYTES] [--value N] [--for SECONDS] FILE
 *     joins the node of SOFTCMI_NODE, creates a segment (seg_get), stores N in its first word,
 *     exports it write-through (seg_exp), makes a token for any node with read, write and atomic
 *     rights (tok_new), writes the handle and the token to FILE (mode 0600: the token is a
 *     secret), and keeps the segment until interrupted (or for SECONDS)
 * softcmi import FILE
 *     joins the node of SOFTCMI_NODE, imports the segment FILE names (seg_imp), sets the token
 *     (seg_set_token), attaches it (seg_at), reads its first word and adds 1 to it with atm_cas
 * </pre>
 * Beyond the spec: a convenience of this distribution.
 */
final class ShareCommands {
    static final String USAGE = """
          export     softcmi export [--size BYTES] [--value N] [--for SECONDS] FILE: share a new segment of this node
                     (SOFTCMI_NODE), writing its handle and token to FILE (mode 0600), until interrupted
          import     softcmi import FILE: import the segment FILE names into this node (SOFTCMI_NODE), read its
                     first word and add 1 to it""";

    private ShareCommands() {
    }

    /**
     * Runs {@code softcmi export}.
     *
     * @param args the arguments after {@code export}
     * @param out where progress goes
     * @param err where errors go
     * @param env the environment ({@code SOFTCMI_NODE})
     * @return the exit status: 0, 1 (a CMI call failed), 2 (usage)
     */
    static int export(List<String> args, PrintStream out, PrintStream err, Map<String, String> env) {
        long size = 4096;
        long value = 42;
        long seconds = 0;
        Path file = null;
        try {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.startsWith("--")) {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException("missing value after " + a);
                    }
                    long v = Long.parseLong(args.get(++i));
                    switch (a) {
                        case "--size" -> size = v;
                        case "--value" -> value = v;
                        case "--for" -> seconds = v;
                        default -> throw new IllegalArgumentException("unknown option " + a);
                    }
                } else if (file == null) {
                    file = Path.of(a);
                } else {
                    throw new IllegalArgumentException("too many arguments");
                }
            }
            if (file == null) {
                throw new IllegalArgumentException("export needs a FILE for the handle and the token");
            }
            if (size < 8 || seconds < 0) {
                throw new IllegalArgumentException("--size must be at least 8 and --for not negative");
            }
        } catch (NumberFormatException e) {
            return usage(err, "not a number: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        if (!hasNode(env)) {
            return usage(err, "export needs a node daemon: set SOFTCMI_NODE to its directory");
        }
        try {
            CmiContext ctx = Cmi.init(new CmiVersion(1, 1));
            CmiSegment seg = ctx.segGet(size, Set.of());
            CmiMapping m = ctx.segAt(seg, Set.of());
            ctx.enable(true);
            m.putLong(0, value);
            RemoteSegmentHandle handle = ctx.segExp(seg, Set.of(ExportAttr.WRITE_THROUGH));
            CmiToken token = ctx.tokNew(seg, NodeAddress.ANY, EnumSet.allOf(Access.class));
            write(file, handle, token);
            out.println("softcmi: exported segment " + seg.id() + " (" + size + " bytes, word 0 = " + value + ") of node "
                + ctx.nodeAddress() + "; handle and token in " + file + "; serving "
                + (seconds == 0 ? "until interrupted" : "for " + seconds + " s"));
            out.flush();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (seconds == 0 || System.nanoTime() - end < 0) {
                Thread.sleep(seconds == 0 ? 60_000 : Math.max(1, Math.min(1_000, (end - System.nanoTime()) / 1_000_000)));
            }
            out.println("softcmi: export ends after " + seconds + " s (word 0 = " + m.getLong(0) + ")");
            ctx.close();
            return 0;
        } catch (CmiException | CmiAccessException e) {
            err.println("softcmi: export failed: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("softcmi: cannot write " + file + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /**
     * Runs {@code softcmi import}.
     *
     * @param args the arguments after {@code import}
     * @param out where the result goes
     * @param err where errors go
     * @param env the environment ({@code SOFTCMI_NODE})
     * @return the exit status: 0, 1 (a CMI call or access failed, or the file is bad), 2 (usage)
     */
    static int importSegment(List<String> args, PrintStream out, PrintStream err, Map<String, String> env) {
        if (args.size() != 1 || args.get(0).startsWith("--")) {
            return usage(err, "import takes one FILE (written by softcmi export)");
        }
        if (!hasNode(env)) {
            return usage(err, "import needs a node daemon: set SOFTCMI_NODE to its directory");
        }
        Path file = Path.of(args.get(0));
        byte[][] shared;
        try {
            shared = read(file);
        } catch (IOException | IllegalArgumentException e) {
            err.println("softcmi: cannot read a handle and a token from " + file + ": " + e.getMessage());
            return 1;
        }
        try {
            CmiContext ctx = Cmi.init(new CmiVersion(1, 1));
            try {
                RemoteSegmentHandle handle = RemoteSegmentHandle.fromBytes(shared[0]);
                CmiSegment proxy = ctx.segImp(handle);
                ctx.segSetToken(proxy, CmiToken.fromBytes(shared[1]));
                ctx.enable(true);
                CmiMapping m = ctx.segAt(proxy, Set.of());
                long was = m.getLong(0);
                long seen = was;
                for (int round = 0; round < 1_000; round++) {
                    long before = ctx.atmCas(m, 0, seen, seen + 1);
                    if (before == seen) {
                        break;
                    }
                    seen = before;
                }
                out.println("softcmi: node " + ctx.nodeAddress() + " imported a segment of node " + proxy.home()
                    + " (proxy segment " + proxy.id() + "): word 0 was " + was + ", now " + (seen + 1) + " (atm_cas)");
                return 0;
            } finally {
                ctx.close();
            }
        } catch (CmiException | CmiAccessException e) {
            err.println("softcmi: import failed: " + e.getMessage());
            return 1;
        }
    }

    private static boolean hasNode(Map<String, String> env) {
        String node = env.get("SOFTCMI_NODE");
        return node != null && !node.isBlank() || System.getProperty("softcmi.node") != null;
    }

    private static int usage(PrintStream err, String message) {
        err.println("softcmi: " + message);
        err.println("usage:\n" + USAGE);
        return 2;
    }

    /** Writes the file in one step (a temporary file renamed), readable by its owner only. */
    static void write(Path file, RemoteSegmentHandle handle, CmiToken token) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, ".softcmi-export-", ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, "# softcmi export: a segment handle and an access token. Keep it secret: the token\n"
                + "# grants read, write and atomic access to the segment.\n"
                + "handle " + HexFormat.of().formatHex(handle.toBytes()) + "\n"
                + "token " + HexFormat.of().formatHex(token.toBytes()) + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** @return the handle's and the token's bytes */
    static byte[][] read(Path file) throws IOException {
        byte[] handle = null;
        byte[] token = null;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String l = line.strip();
            if (l.startsWith("handle ")) {
                handle = HexFormat.of().parseHex(l.substring(7).strip());
            } else if (l.startsWith("token ")) {
                token = HexFormat.of().parseHex(l.substring(6).strip());
            }
        }
        if (handle == null || token == null) {
            throw new IllegalArgumentException("no 'handle' or no 'token' line");
        }
        return new byte[][] {handle, token};
    }
}
