package io.softcmi.smi.internal;

/** Debug output of one process ({@code SMI_Debug}, {@code smirun -debug}): lines on standard error. */
public final class Debug {
    private volatile boolean on;
    private volatile int rank;

    /** @param on whether to print */
    public Debug(boolean on) {
        this.on = on;
    }

    /** @param on whether to print from now on */
    public void on(boolean on) {
        this.on = on;
    }

    /** @param rank the rank to print as */
    public void rank(int rank) {
        this.rank = rank;
    }

    /** @return whether debug output is on */
    public boolean on() {
        return on;
    }

    /** @param msg a line to print when on */
    public void log(String msg) {
        if (on) {
            System.err.println("smi[" + rank + "] debug: " + msg);
        }
    }
}
