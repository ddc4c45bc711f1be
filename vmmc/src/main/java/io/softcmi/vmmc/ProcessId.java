package io.softcmi.vmmc;

/**
 * A full process identification: the {@code (vmmc_node_t, vmmc_pid_t)} pair ({@code vmmc_Parent}).
 *
 * @param node the node
 * @param pid the pid on that node
 */
public record ProcessId(VmmcNode node, VmmcPid pid) {
}
