package io.softcmi.vmmc;

/** A notification handler ({@code vmmc_callback_t}), attached to a receive buffer at export. */
@FunctionalInterface
public interface VmmcCallback {
    /**
     * Runs in the receiver after the message's data is in its buffer.
     *
     * @param lastWordAddress the address of the last word of the message in local memory
     * @param lastWordValue the value of that word when the handler was called
     */
    void onNotification(long lastWordAddress, int lastWordValue);
}
