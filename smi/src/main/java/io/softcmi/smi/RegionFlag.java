package io.softcmi.smi;

/** Region creation attributes ({@code SMI_SHM_DELAYED} ..., manual §7, §17.3). */
public enum RegionFlag {
    /** {@code SMI_SHM_DELAYED}: non-owners import only on {@link SmiRegion#connect()}. */
    DELAYED,
    /**
     * {@code SMI_SHM_NONFIXED}: addresses differ between processes. Always true in Java (regions are
     * reached by offset), so accepted wherever the manual allows it and otherwise ignored.
     */
    NONFIXED,
    /** {@code SMI_SHM_REGISTER}: export existing memory (not implemented, as in the manual). */
    REGISTER,
    /** {@code SMI_SHM_PRIVATE}: a {@code LOCAL} region that is not exported. */
    PRIVATE
}
