package io.softcmi.smi.internal;

import io.softcmi.smi.IoMode;
import io.softcmi.smi.SmiError;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.PrintStream;

/**
 * {@code SMI_Redirect_IO}: points this JVM's {@code System.err}, {@code System.out} and
 * {@code System.in} at files; output file names get the suffix {@code .RANK}.
 */
public final class IoRedirect {
    private IoRedirect() {
    }

    /**
     * Redirects the streams whose mode is {@link IoMode#FILE}.
     *
     * @param rank this process's rank (the output files' suffix)
     * @param err mode for stderr
     * @param errParam its file
     * @param out mode for stdout
     * @param outParam its file
     * @param in mode for stdin
     * @param inParam its file
     */
    public static void redirect(int rank, IoMode err, String errParam, IoMode out, String outParam, IoMode in,
        String inParam) {
        if (err == null || out == null || in == null) {
            throw Errors.fail(SmiError.PARAM, "modes must not be null");
        }
        if (err == IoMode.FILE && errParam == null || out == IoMode.FILE && outParam == null
                || in == IoMode.FILE && inParam == null) {
            throw Errors.fail(SmiError.PARAM, "a stream redirected to a file needs its file name");
        }
        try {
            if (err == IoMode.FILE) {
                System.setErr(new PrintStream(new FileOutputStream(errParam + "." + rank), true));
            }
            if (out == IoMode.FILE) {
                System.setOut(new PrintStream(new FileOutputStream(outParam + "." + rank), true));
            }
            if (in == IoMode.FILE) {
                System.setIn(new FileInputStream(inParam));
            }
        } catch (FileNotFoundException | NullPointerException e) {
            throw Errors.fail(SmiError.PARAM, "cannot redirect: " + e.getMessage());
        }
    }
}
