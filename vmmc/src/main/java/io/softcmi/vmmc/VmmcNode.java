package io.softcmi.vmmc;

/**
 * A node of the VMMC cluster ({@code vmmc_node_t}): one host of {@code VMMCHOSTS}.
 *
 * @param id the node id: the host's 1-based position in {@code VMMCHOSTS}
 * @param name the host name
 */
public record VmmcNode(int id, String name) {
}
