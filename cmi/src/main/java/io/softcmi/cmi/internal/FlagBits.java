package io.softcmi.cmi.internal;

import java.util.EnumSet;
import java.util.Set;

/** Converts flag sets to the bit masks the wire carries ({@code 1 << ordinal}) and back. */
public final class FlagBits {
    private FlagBits() {
    }

    /**
     * @param flags a set of flags
     * @param <E> the flag enum
     * @return the mask
     */
    public static <E extends Enum<E>> int toBits(Set<E> flags) {
        int bits = 0;
        for (E e : flags) {
            bits |= 1 << e.ordinal();
        }
        return bits;
    }

    /**
     * @param bits a mask
     * @param type the flag enum
     * @param <E> the flag enum
     * @return the set; unknown bits are ignored
     */
    public static <E extends Enum<E>> EnumSet<E> fromBits(int bits, Class<E> type) {
        EnumSet<E> set = EnumSet.noneOf(type);
        for (E e : type.getEnumConstants()) {
            if ((bits & (1 << e.ordinal())) != 0) {
                set.add(e);
            }
        }
        return set;
    }
}
