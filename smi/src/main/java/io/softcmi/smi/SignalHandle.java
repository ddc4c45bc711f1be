package io.softcmi.smi;

/** A signal callback set by {@link Smi#signalSetCallback} ({@code smi_signal_handle}). */
public interface SignalHandle {
    /** @return whether the callback has run */
    boolean done();
}
