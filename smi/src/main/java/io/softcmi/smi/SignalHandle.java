package io.softcmi.smi;

/** A signal callback set by {@link Smi#signalSetCallback} ({@code smi_signal_handle}). */
public interface SignalHandle {
    /** @return whether the wait behind the callback has ended: the callback ran, or the wait failed (an {@code OTHER}: the sender finalized) */
    boolean done();
}
