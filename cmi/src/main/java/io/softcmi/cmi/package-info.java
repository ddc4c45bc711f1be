/**
 * The public Java API of softcmi, an implementation of Oracle's Coherent Memory Interface (CMI),
 * the {@code libcmi(3LIB)} interface of {@code cmi(7)}.
 *
 * <h2>From C to Java</h2>
 * The API follows the C library one for one, so that spec-minded code reads naturally:
 * <ul>
 *   <li>{@link io.softcmi.cmi.Cmi#init(io.softcmi.cmi.CmiVersion, io.softcmi.cmi.CmiCallbacks)} is
 *       {@code cmi_ini} and returns the {@code cmi_ctxt}, a {@link io.softcmi.cmi.CmiContext}, which
 *       has one method per {@code libcmi} function and per {@code seg_ctl}, {@code cmi_ctl} and
 *       {@code attr_get} command; each method's documentation names the call it implements.</li>
 *   <li>Failure is an exception, never a magic return: {@link io.softcmi.cmi.CmiException} carries
 *       the {@link io.softcmi.cmi.CmiError} that {@code cmi_get_error}
 *       ({@link io.softcmi.cmi.Cmi#lastError()}) also reports.</li>
 *   <li>The spec's access exception ({@code SIGSEGV} with {@code SEGV_CMI}) is
 *       {@link io.softcmi.cmi.CmiAccessException}, thrown in the accessing thread, carrying
 *       {@code si_errno}, {@code si_id} and {@code si_addr} (as an offset into the segment).</li>
 *   <li>Addresses are a {@link io.softcmi.cmi.CmiMapping} (what {@code seg_at} returns) plus a byte
 *       offset; loads and stores are methods of the mapping.</li>
 *   <li>Handles that travel between nodes ({@code cmi_rseg}, {@code cmi_token}, {@code cmi_naddr})
 *       are opaque immutable objects that serialize to {@code byte[]}.</li>
 *   <li>Flag words are {@code Set}s of enums (an empty set is 0); each enum constant's
 *       {@code specName()} gives the C name.</li>
 *   <li>Structures filled in by the library ({@code cmi_ctl_cfg}, {@code cmi_ds}) are records whose
 *       components carry the C field names in camelCase; events ({@code cmi_event}) are a sealed
 *       interface of records.</li>
 * </ul>
 *
 * <p>Implementation classes live in {@code io.softcmi.cmi.internal} and are not part of the API.
 */
package io.softcmi.cmi;
