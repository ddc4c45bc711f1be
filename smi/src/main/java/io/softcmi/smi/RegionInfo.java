package io.softcmi.smi;

import java.util.Arrays;

/**
 * The description of a region to create ({@code smi_region_info_t}, manual §17.4). Not every field
 * is meaningful for every {@link RegionType}. Made by {@link Smi#initReginfo}; fields are set with
 * the fluent setters.
 */
public final class RegionInfo {
    private long size;
    private int owner;
    private long offset;
    private long sgmtId;
    private int partner;
    private int nbrSgmts;
    private int[] sgmtOwner = new int[0];
    private long[] sgmtSize = new long[0];
    private int adapter;
    private int rmtAdapter;

    RegionInfo(long size, int owner) {
        this.size = size;
        this.owner = owner;
    }

    /** @return {@code size}: the region's size in bytes (as seen by this process) */
    public long size() {
        return size;
    }

    /**
     * @param v {@code size}
     * @return this
     */
    public RegionInfo size(long v) {
        size = v;
        return this;
    }

    /** @return {@code owner}: the rank of the process the region is local to */
    public int owner() {
        return owner;
    }

    /**
     * @param v {@code owner}
     * @return this
     */
    public RegionInfo owner(int v) {
        owner = v;
        return this;
    }

    /** @return {@code offset}: where a non-owner's window of the region starts */
    public long offset() {
        return offset;
    }

    /**
     * @param v {@code offset}
     * @return this
     */
    public RegionInfo offset(long v) {
        offset = v;
        return this;
    }

    /** @return {@code sgmt_id}: the owner's segment id, for {@code REMOTE} and {@code RDMA} */
    public long sgmtId() {
        return sgmtId;
    }

    /**
     * @param v {@code sgmt_id} as {@link SmiRegion#sgmtId()} answered on the owner
     * @return this
     */
    public RegionInfo sgmtId(long v) {
        sgmtId = v;
        return this;
    }

    /** @return {@code partner}: the other process of a {@code PT2PT} region */
    public int partner() {
        return partner;
    }

    /**
     * @param v {@code partner}
     * @return this
     */
    public RegionInfo partner(int v) {
        partner = v;
        return this;
    }

    /** @return {@code nbr_sgmts}: the number of segments ({@code CYCLIC}, {@code CUSTOMIZED}) */
    public int nbrSgmts() {
        return nbrSgmts;
    }

    /**
     * @param v {@code nbr_sgmts}
     * @return this
     */
    public RegionInfo nbrSgmts(int v) {
        nbrSgmts = v;
        return this;
    }

    /** @return {@code sgmt_owner}: a copy of the owner rank of each segment ({@code CUSTOMIZED}) */
    public int[] sgmtOwner() {
        return sgmtOwner.clone();
    }

    /**
     * @param v {@code sgmt_owner}
     * @return this
     */
    public RegionInfo sgmtOwner(int... v) {
        sgmtOwner = v.clone();
        return this;
    }

    /** @return {@code sgmt_size}: a copy of the size of each segment ({@code CUSTOMIZED}) */
    public long[] sgmtSize() {
        return sgmtSize.clone();
    }

    /**
     * @param v {@code sgmt_size}
     * @return this
     */
    public RegionInfo sgmtSize(long... v) {
        sgmtSize = v.clone();
        return this;
    }

    /** @return {@code adapter} (accepted and ignored: one TCP data path per node) */
    public int adapter() {
        return adapter;
    }

    /**
     * @param v {@code adapter}
     * @return this
     */
    public RegionInfo adapter(int v) {
        adapter = v;
        return this;
    }

    /** @return {@code rmt_adapter} (accepted and ignored) */
    public int rmtAdapter() {
        return rmtAdapter;
    }

    /**
     * @param v {@code rmt_adapter}
     * @return this
     */
    public RegionInfo rmtAdapter(int v) {
        rmtAdapter = v;
        return this;
    }

    @Override
    public String toString() {
        return "RegionInfo[size=" + size + ", owner=" + owner + ", offset=" + offset + ", sgmtId=" + sgmtId
            + ", partner=" + partner + ", nbrSgmts=" + nbrSgmts + ", sgmtOwner=" + Arrays.toString(sgmtOwner)
            + ", sgmtSize=" + Arrays.toString(sgmtSize) + "]";
    }
}
