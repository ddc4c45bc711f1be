/**
 * Direct views (a softcmi extension, not part of libcmi): {@link
 * io.softcmi.cmi.direct.DirectViews#view} gives the memory of a local attach as a zero-copy
 * {@link java.lang.foreign.MemorySegment}. See {@code docs/direct.md}.
 */
package io.softcmi.cmi.direct;
