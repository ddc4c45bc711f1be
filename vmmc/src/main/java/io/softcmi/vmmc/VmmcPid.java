package io.softcmi.vmmc;

/**
 * A VMMC process id ({@code vmmc_pid_t}): a logical pid, unique per node within a session.
 *
 * @param value the pid, at least 1
 */
public record VmmcPid(int value) {
}
