package io.softcmi.cmi.internal;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * How softcmi's log records look when nobody else decides. softcmi logs through
 * {@link System.Logger} (loggers {@code io.softcmi.*}); an application that installs its own
 * {@link System.LoggerFinder} (an SLF4J or Log4j bridge) or configures {@code java.util.logging}
 * ({@code java.util.logging.config.file} or {@code .class}) gets the records its own way and
 * this class does nothing. Otherwise it gives the {@code io.softcmi} loggers one handler that
 * writes one line per record to standard error:
 * <pre>
 * 2026-11-23T00:47:53.123Z INFO  [node1] io.softcmi.node: node node1 up: ...
 * </pre>
 * (time in UTC, level, the node's name, logger, message; a throwable's {@code toString} ends the
 * line). The level comes from the system property {@code softcmi.log.level} or the environment
 * variable {@code SOFTCMI_LOG_LEVEL} ({@code ERROR}, {@code WARNING}, {@code INFO}, {@code DEBUG},
 * {@code TRACE}, {@code OFF}); without either, {@code cmid} logs at {@code INFO} and a process
 * that runs the node embedded or joins a daemon at {@code WARNING}, so that applications stay
 * quiet unless asked.
 */
public final class SoftcmiLogging {
    private static final String ROOT = "io.softcmi";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        .withZone(ZoneOffset.UTC);
    private static volatile String nodeName = "-";
    private static boolean configured;
    /** Keeps the configured logger reachable (java.util.logging holds loggers weakly). */
    private static Logger root;

    private SoftcmiLogging() {
    }

    /**
     * Sets the node name shown on every line (the node this process runs or joins; in a JVM
     * running several nodes, the last one started).
     *
     * @param name node name
     */
    public static void nodeName(String name) {
        nodeName = name == null || name.isBlank() ? "-" : name;
    }

    /**
     * Installs the one-line format once, unless the application took charge of logging.
     *
     * @param daemon true in {@code cmid} (default level INFO), false in applications (WARNING)
     * @return whether softcmi's format is in use
     */
    public static synchronized boolean configure(boolean daemon) {
        if (configured) {
            return root != null;
        }
        configured = true;
        if (!usesDefaultBackend()) {
            return false;
        }
        String asked = System.getProperty("softcmi.log.level");
        if (asked == null || asked.isBlank()) {
            asked = System.getenv("SOFTCMI_LOG_LEVEL");
        }
        java.util.logging.Level dflt = daemon ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING;
        java.util.logging.Level level;
        try {
            level = parseLevel(asked, dflt);
        } catch (IllegalArgumentException e) {
            System.err.println("softcmi: " + e.getMessage() + "; logging at " + levelName(dflt).strip());
            level = dflt;
        }
        Logger logger = Logger.getLogger(ROOT);
        for (Handler h : logger.getHandlers()) {
            logger.removeHandler(h);
        }
        Handler handler = new Handler() {
            private final Formatter format = new OneLine();

            @Override
            public void publish(LogRecord r) {
                if (isLoggable(r)) {
                    PrintStream err = System.err;
                    err.print(format.format(r));
                    err.flush();
                }
            }

            @Override
            public void flush() {
                System.err.flush();
            }

            @Override
            public void close() {
                flush();
            }
        };
        handler.setLevel(java.util.logging.Level.ALL);
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        logger.setLevel(level);
        root = logger;
        return true;
    }

    /**
     * Logs one record directly to standard error in softcmi's format when that format is in use
     * (else through {@link System.Logger}). For shutdown hooks: java.util.logging removes every
     * handler in its own shutdown hook, so records logged while the JVM stops may be lost.
     *
     * @param level the level
     * @param logger the logger name
     * @param message the message (already formatted)
     */
    public static void direct(System.Logger.Level level, String logger, String message) {
        Logger r;
        synchronized (SoftcmiLogging.class) {
            r = root;
        }
        if (r == null) {
            System.getLogger(logger).log(level, message);
            return;
        }
        java.util.logging.Level l = switch (level) {
            case ERROR -> java.util.logging.Level.SEVERE;
            case WARNING -> java.util.logging.Level.WARNING;
            case INFO -> java.util.logging.Level.INFO;
            case DEBUG -> java.util.logging.Level.FINE;
            default -> java.util.logging.Level.FINEST;
        };
        if (r.isLoggable(l)) {
            LogRecord rec = new LogRecord(l, message);
            rec.setLoggerName(logger);
            System.err.print(new OneLine().format(rec));
            System.err.flush();
        }
    }

    /** @return whether System.Logger goes to java.util.logging with its default configuration */
    static boolean usesDefaultBackend() {
        if (System.getProperty("java.util.logging.config.file") != null
                || System.getProperty("java.util.logging.config.class") != null) {
            return false;
        }
        try {
            return System.LoggerFinder.getLoggerFinder().getClass().getName()
                .equals("sun.util.logging.internal.LoggingProviderImpl");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * @param s a level name, or null
     * @param dflt the level when {@code s} is null or blank
     * @return the java.util.logging level
     * @throws IllegalArgumentException for an unknown name
     */
    static java.util.logging.Level parseLevel(String s, java.util.logging.Level dflt) {
        if (s == null || s.isBlank()) {
            return dflt;
        }
        return switch (s.strip().toUpperCase(Locale.ROOT)) {
            case "OFF" -> java.util.logging.Level.OFF;
            case "ERROR" -> java.util.logging.Level.SEVERE;
            case "WARNING", "WARN" -> java.util.logging.Level.WARNING;
            case "INFO" -> java.util.logging.Level.INFO;
            case "DEBUG" -> java.util.logging.Level.FINE;
            case "TRACE", "ALL" -> java.util.logging.Level.ALL;
            default -> throw new IllegalArgumentException("unknown log level " + s
                + " (ERROR, WARNING, INFO, DEBUG, TRACE or OFF)");
        };
    }

    /** System.Logger's name of a java.util.logging level. */
    static String levelName(java.util.logging.Level l) {
        int v = l.intValue();
        if (v >= java.util.logging.Level.SEVERE.intValue()) {
            return "ERROR";
        } else if (v >= java.util.logging.Level.WARNING.intValue()) {
            return "WARN ";
        } else if (v >= java.util.logging.Level.INFO.intValue()) {
            return "INFO ";
        } else if (v >= java.util.logging.Level.FINE.intValue()) {
            return "DEBUG";
        }
        return "TRACE";
    }

    /** One line per record: time, level, node, logger, message. */
    static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder b = new StringBuilder(160);
            b.append(TIME.format(r.getInstant() == null ? Instant.now() : r.getInstant())).append(' ')
                .append(levelName(r.getLevel())).append(" [").append(nodeName).append("] ")
                .append(r.getLoggerName()).append(": ");
            String msg = formatMessage(r);
            b.append(msg == null ? "" : msg.replace('\n', ' '));
            if (r.getThrown() != null) {
                b.append(" (").append(String.valueOf(r.getThrown()).replace('\n', ' ')).append(')');
            }
            return b.append('\n').toString();
        }
    }
}
