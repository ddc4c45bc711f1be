package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiQuery;

/**
 * The answers of {@code SMI_Query} on TCP: fixed values for the SCI adapter queries, the job's
 * placement, the regions' state and the system's CPUs and page size.
 */
public final class Queries {
    private final Job job;
    private final Topology topology;
    private final Regions regions;
    private final long page;

    /**
     * @param job the job
     * @param topology its placement
     * @param regions its regions
     * @param page the page size regions are rounded to
     */
    public Queries(Job job, Topology topology, Regions regions, long page) {
        this.job = job;
        this.topology = topology;
        this.regions = regions;
        this.page = page;
    }

    /**
     * {@code SMI_Query} for integer-valued queries of a live process.
     *
     * @param q the query
     * @param arg its argument (adapter, rank or region id; ignored where none)
     * @return the result
     */
    public long query(SmiQuery q, int arg) {
        return switch (q) {
            case SCI_STREAMBUFSIZE, SCI_NBRSTREAMBUFS, SCI_ADAPTERTYPE, SCI_DEFADAPTER, SCI_NEXTADAPTER -> 0;
            case SCI_PACKETSIZE -> 8;
            case SCI_NBRADAPTERS -> 1;
            case SCI_ID -> topology.nodeRank();
            case SCI_PROC_ID -> topology.procToNode(arg);
            case SCI_CONNECTION_STATE -> job.bootstrapReachable() ? SmiError.SUCCESS.code() : SmiError.PENDING.code();
            case SMI_REGION_CONNECTED -> regions.connected(arg) ? 1 : 0;
            case SMI_REGION_SGMT_ID -> regions.byId(arg).sgmtId();
            case SMI_REGION_ADPT -> regions.allLocal(arg) ? -1 : 0;
            case SYS_NBRCPUS -> Runtime.getRuntime().availableProcessors();
            case SYS_CPUFREQ -> SysInfo.cpuMhz();
            case SYS_PAGESIZE -> page;
            case SCI_API_VERSION -> throw Errors.fail(SmiError.PARAM, "SCI_API_VERSION is string-valued: use queryString");
            case SMI_INITIALIZED -> 1;
        };
    }

    /**
     * {@code SMI_Query(SMI_Q_SCI_API_VERSION)}.
     *
     * @param q {@link SmiQuery#SCI_API_VERSION}
     * @return the transport's version string
     */
    public String queryString(SmiQuery q) {
        if (q != SmiQuery.SCI_API_VERSION) {
            throw Errors.fail(SmiError.PARAM, q + " is not string-valued");
        }
        return "softcmi CMI " + job.context().version() + " over TCP (no SISCI)";
    }
}
