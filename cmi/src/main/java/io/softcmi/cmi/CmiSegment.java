package io.softcmi.cmi;

/**
 * A CMI segment: the spec's {@code cmi_seg}, as returned by {@code seg_get} or {@code seg_imp}.
 * A segment has node scope: any process on the node may look it up by its {@link #id()} with
 * {@link CmiContext#segFromId(long)}. Segments are used through a {@link CmiMapping} obtained with
 * {@code seg_at} ({@link CmiContext#segAt(CmiSegment, java.util.Set)}).
 */
public interface CmiSegment {
    /**
     * The spec's {@code CMI_SEG_ALL}: all segments, accepted only where the spec allows it
     * ({@code cmi_ctl(CMI_CTL_CACHE_RSEG_SET)}, {@link CmiContext#ctlCacheRsegSet}). Its id is
     * {@code -1}.
     */
    CmiSegment ALL = AllSegments.INSTANCE;

    /**
     * The segment id: the value the spec's {@code si_id} reports, unique on the node.
     *
     * @return the id of this segment
     */
    long id();

    /**
     * The size of the segment in bytes, as given to {@code seg_get}: for an extensible segment its
     * maximum size (see {@link SegStatus#segBrk()} for the break point).
     *
     * @return the size in bytes
     */
    long size();

    /**
     * Whether this segment was obtained by {@code seg_imp}, i.e. is a view of a segment exported by
     * some node (perhaps this one).
     *
     * @return {@code true} for an imported segment, {@code false} for one made by {@code seg_get}
     */
    boolean imported();

    /**
     * The home node of the segment: where its memory lives.
     *
     * @return the node address of the home node
     */
    NodeAddress home();
}
