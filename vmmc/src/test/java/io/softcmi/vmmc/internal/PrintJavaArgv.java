package io.softcmi.vmmc.internal;

import java.util.List;

/** Prints {@link RunControl#javaArgv} for a main class, one element per line (run by {@link RunControlTest} in a child JVM). */
public final class PrintJavaArgv {
    private PrintJavaArgv() {
    }

    /**
     * Entry point.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        RunControl.javaArgv("example.Main", List.of("a1")).forEach(System.out::println);
    }
}
