package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;

/** The one place that builds {@link SmiException}s. */
public final class Errors {
    private Errors() {
    }

    /**
     * @param e the code
     * @param message what failed
     * @return the exception to throw
     */
    public static SmiException fail(SmiError e, String message) {
        return new SmiException(e, message);
    }

    /**
     * Translates a CMI failure of an SMI call into the manual's code.
     *
     * @param what the SMI operation
     * @param e the CMI failure
     * @return the exception to throw
     */
    public static SmiException fromCmi(String what, CmiException e) {
        SmiError code = e.error() == CmiError.NOMEM ? SmiError.NOMEM
            : e.error() == CmiError.INIT ? SmiError.NODEVICE : SmiError.OTHER;
        return new SmiException(code, what + ": " + e.getMessage(), e);
    }

    /**
     * Checks a process rank.
     *
     * @param rank the rank
     * @param size the number of processes
     * @param what the parameter's name
     * @return the rank
     */
    public static int checkRank(int rank, int size, String what) {
        if (rank < 0 || rank >= size) {
            throw fail(SmiError.PARAM, what + " " + rank + " is not a process rank (0.." + (size - 1) + ")");
        }
        return rank;
    }

    /**
     * Checks that an argument is given.
     *
     * @param value the argument
     * @param what the parameter's name
     * @param <T> its type
     * @return the argument
     */
    public static <T> T nonNull(T value, String what) {
        if (value == null) {
            throw fail(SmiError.PARAM, what + " must not be null");
        }
        return value;
    }
}
