package io.softcmi.cmi;

/**
 * The spec's access privileges ({@code cmi_acc}) granted by an access token made with {@code
 * tok_new} or {@code tok_newva}.
 */
public enum Access {
    /**
     * {@code CMI_ACC_READ}: the token allows loads from the segment.
     */
    READ,
    /**
     * {@code CMI_ACC_WRITE}: the token allows stores to the segment.
     */
    WRITE,
    /**
     * {@code CMI_ACC_ATOMIC}: the token allows atomic operations ({@code atm_cas}) on the
     * segment.
     */
    ATOMIC;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_ACC_"} followed by the constant's name, e.g. {@code "CMI_ACC_READ"}
     */
    public String specName() {
        return "CMI_ACC_" + name();
    }
}
