package io.softcmi.cmi;

/**
 * The spec's {@code CMI_SEG_ALL} ({@link CmiSegment#ALL}): a pseudo-segment standing for all
 * segments. It has id {@code -1}, no size and no home of its own.
 */
final class AllSegments implements CmiSegment {
    /** The only instance. */
    static final AllSegments INSTANCE = new AllSegments();

    /** Only {@link #INSTANCE}. */
    private AllSegments() {
    }

    @Override
    public long id() {
        return -1L;
    }

    @Override
    public long size() {
        return 0L;
    }

    @Override
    public boolean imported() {
        return false;
    }

    @Override
    public NodeAddress home() {
        return NodeAddress.ANY;
    }

    @Override
    public String toString() {
        return "CMI_SEG_ALL";
    }
}
