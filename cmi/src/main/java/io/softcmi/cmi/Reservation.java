package io.softcmi.cmi;

/**
 * The answer of {@code cmi_ctl(CMI_CTL_MEM_RESERVE)} ({@link CmiContext#ctlMemReserve(long)}): the
 * memory reservation now associated with the context.
 *
 * @param rsvKey {@code rsv_key}: the key naming the reservation, to share it with
 *               {@code CMI_CTL_MEM_RESERVE_SET}
 * @param memReserved the amount of memory reserved, in bytes
 * @param memAllocd {@code ctl_cfg_mem_allocd}: the memory currently allocated against the
 *                  reservation, in bytes
 */
public record Reservation(long rsvKey, long memReserved, long memAllocd) {
}
