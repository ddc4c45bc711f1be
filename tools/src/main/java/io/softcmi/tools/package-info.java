/**
 * Command-line tools of softcmi: {@link io.softcmi.tools.CmiAdm} ({@code cmiadm(8)}, the node's
 * administration tool) and {@link io.softcmi.tools.SoftCmi} (the Java side of the
 * {@code softcmi} launcher: {@code demo}, {@code version}). The node daemon itself,
 * {@code cmid}, is {@code io.softcmi.node.Cmid}. The launchers live in {@code bin/}.
 */
package io.softcmi.tools;
