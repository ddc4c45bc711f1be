package io.softcmi.smi.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** Facts about the machine: host name, page size, CPU frequency. */
public final class SysInfo {
    /** The page size SMI assumes of every node (Linux x86-64 and aarch64 with 4 KiB pages). */
    public static final long OS_PAGE = 4096;

    private SysInfo() {
    }

    /**
     * The granularity regions are rounded to: the least common multiple of the OS page and the
     * CMI protection unit.
     *
     * @param protUnits {@code CmiInfo.protUnits()}
     * @return the page size
     */
    public static long pageSize(long protUnits) {
        long p = Math.max(1, protUnits);
        return OS_PAGE / gcd(OS_PAGE, p) * p;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** @return this host's name, or {@code localhost} if it has none */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /** @return the CPU clock in MHz from {@code /proc/cpuinfo}, or 0 if unknown */
    public static long cpuMhz() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("cpu MHz")) {
                    return Math.round(Double.parseDouble(l.substring(l.indexOf(':') + 1).strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
