package io.softcmi.smi;

/**
 * The queries of {@link Smi#query} ({@code SMI_Q_*}, manual §6, §17.8). softcmi has no PCI-SCI
 * adapter: the SCI queries answer what is true of its TCP transport (see each constant).
 */
public enum SmiQuery {
    /** {@code SMI_Q_SCI_STREAMBUFSIZE}: 0, TCP has no stream buffers. */
    SCI_STREAMBUFSIZE,
    /** {@code SMI_Q_SCI_PACKETSIZE}: 8, the unit of a remote load or store. */
    SCI_PACKETSIZE,
    /** {@code SMI_Q_SCI_NBRSTREAMBUFS}: 0. */
    SCI_NBRSTREAMBUFS,
    /** {@code SMI_Q_SCI_NBRADAPTERS}: 1, the node's one TCP data path. */
    SCI_NBRADAPTERS,
    /** {@code SMI_Q_SCI_ADAPTERTYPE}: 0, not a Dolphin adapter. */
    SCI_ADAPTERTYPE,
    /** {@code SMI_Q_SCI_DEFADAPTER}: 0. */
    SCI_DEFADAPTER,
    /** {@code SMI_Q_SCI_NEXTADAPTER}: 0. */
    SCI_NEXTADAPTER,
    /** {@code SMI_Q_SCI_ID}: the node rank of this process (no SCI id exists). */
    SCI_ID,
    /** {@code SMI_Q_SCI_PROC_ID}: the node rank of process {@code arg}. */
    SCI_PROC_ID,
    /** {@code SMI_Q_SCI_CONNECTION_STATE}: {@link SmiError#SUCCESS} code (0) while the job's bootstrap segment answers, else {@code PENDING}'s code. */
    SCI_CONNECTION_STATE,
    /** {@code SMI_Q_SCI_API_VERSION}: string-valued, see {@link Smi#queryString}. */
    SCI_API_VERSION,
    /** {@code SMI_Q_SMI_INITIALIZED}: 1 if initialized and not finalized. */
    SMI_INITIALIZED,
    /** {@code SMI_Q_SMI_REGION_CONNECTED}: 1 if region {@code arg} is connected here. */
    SMI_REGION_CONNECTED,
    /** {@code SMI_Q_SMI_REGION_SGMT_ID}: the internal id of region {@code arg}'s local segment. */
    SMI_REGION_SGMT_ID,
    /** {@code SMI_Q_SMI_REGION_ADPT}: -1 for a region reached through local shared memory only, else 0. */
    SMI_REGION_ADPT,
    /** {@code SMI_Q_SYS_NBRCPUS}: the processors available to this JVM. */
    SYS_NBRCPUS,
    /** {@code SMI_Q_SYS_CPUFREQ}: in MHz from {@code /proc/cpuinfo}, 0 if unknown. */
    SYS_CPUFREQ,
    /** {@code SMI_Q_SYS_PAGESIZE}: {@link Smi#pageSize()}. */
    SYS_PAGESIZE
}
