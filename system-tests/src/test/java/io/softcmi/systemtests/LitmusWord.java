package io.softcmi.systemtests;

/**
 * The values the ordering litmus tests store ({@link CacheOrdering}, {@link RandomMix}): a
 * self-checking word that names its location and a sequence number, so a reader can tell a
 * value that was written from one that never was (a torn word: the home applies stores as byte
 * copies, and only {@code atm_cas} is atomic, docs/architecture.md), and a value written to
 * another location from its own.
 *
 * <pre>
 *  63            32 31      24 23              0
 * +----------------+----------+-----------------+
 * | check(loc,seq) | location |    sequence     |
 * +----------------+----------+-----------------+
 * </pre>
 * {@code 0} is the initial value, sequence 0. Sequence numbers start at 1.
 */
final class LitmusWord {
    /** Largest sequence number a word can carry. */
    static final int MAX_SEQUENCE = (1 << 24) - 1;
    /** Largest location number. */
    static final int MAX_LOCATION = 255;
    /** What {@link #sequence} answers for a value that was never written to that location. */
    static final int MALFORMED = -1;

    private LitmusWord() {
    }

    /**
     * @param location 0 to {@link #MAX_LOCATION}
     * @param sequence 1 to {@link #MAX_SEQUENCE}
     * @return the word to store
     */
    static long encode(int location, int sequence) {
        if (location < 0 || location > MAX_LOCATION || sequence < 1 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("location " + location + ", sequence " + sequence);
        }
        return (long) check(location, sequence) << 32 | (long) location << 24 | sequence;
    }

    /**
     * @param location the location the value was read from
     * @param value what was read
     * @return its sequence number (0 for the initial value), or {@link #MALFORMED} if the value
     *         was never written there (torn, or another location's)
     */
    static int sequence(int location, long value) {
        if (value == 0) {
            return 0;
        }
        int seq = (int) value & MAX_SEQUENCE;
        int loc = (int) (value >>> 24) & 0xFF;
        if (loc != location || seq == 0 || (int) (value >>> 32) != check(location, seq)) {
            return MALFORMED;
        }
        return seq;
    }

    private static int check(int location, int sequence) {
        long x = (sequence + 1L) * 0x9E3779B97F4A7C15L ^ (location + 1L) * 0xC2B2AE3D27D4EB4FL;
        x ^= x >>> 31;
        x *= 0xBF58476D1CE4E5B9L;
        return (int) (x ^ x >>> 29);
    }
}
