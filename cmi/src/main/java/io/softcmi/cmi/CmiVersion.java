package io.softcmi.cmi;

/**
 * A CMI API version: the spec's {@code verno}, a {@code uint16_t} worth {@code major * 10 + minor}
 * (so {@code 10} is 1.0 and {@code 11} is 1.1). Versions are negotiated by {@code cmi_ini}
 * ({@link Cmi#init(CmiVersion, CmiCallbacks)}) and reported by {@link CmiContext#version()}.
 *
 * @param major the major version, 0 to 6553; releases with different majors are not compatible
 * @param minor the minor version, 0 to 9; minors are backward compatible within a major
 */
public record CmiVersion(int major, int minor) {
    /** The largest {@code verno}: the spec's version number is a {@code uint16_t}. */
    private static final int MAX_VERNO = 0xFFFF;

    /**
     * Validates the components.
     *
     * @throws IllegalArgumentException if {@code major} is not in 0..6553, {@code minor} not in
     *         0..9, or {@code verno()} would not fit in 16 bits
     */
    public CmiVersion {
        if (major < 0 || major > MAX_VERNO / 10) {
            throw new IllegalArgumentException("major must be in 0..6553: " + major);
        }
        if (minor < 0 || minor > 9) {
            throw new IllegalArgumentException("minor must be in 0..9: " + minor);
        }
        if (major * 10 + minor > MAX_VERNO) {
            throw new IllegalArgumentException("version " + major + "." + minor + " does not fit a 16-bit verno");
        }
    }

    /**
     * The version a spec {@code verno} stands for.
     *
     * @param verno {@code major * 10 + minor}, 0 to 65535
     * @return the version
     * @throws IllegalArgumentException if {@code verno} is not in 0..65535
     */
    public static CmiVersion of(int verno) {
        if (verno < 0 || verno > MAX_VERNO) {
            throw new IllegalArgumentException("verno must be in 0..65535: " + verno);
        }
        return new CmiVersion(verno / 10, verno % 10);
    }

    /**
     * This version as the spec's {@code verno}.
     *
     * @return {@code major * 10 + minor}
     */
    public int verno() {
        return major * 10 + minor;
    }

    /**
     * This version as text.
     *
     * @return {@code "major.minor"}, e.g. {@code "1.1"}
     */
    @Override
    public String toString() {
        return major + "." + minor;
    }
}
