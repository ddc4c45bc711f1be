/**
 * Runnable samples of the CMI API, compiled on every build and exercised by tests:
 * {@link io.softcmi.samples.SampleCode} (the Sample Code of {@code cmi(7)}),
 * {@link io.softcmi.samples.SharedSegmentExchange} (two processes sharing a segment) and
 * {@link io.softcmi.samples.Demo}, which runs both ({@code bin/softcmi demo}); and the Jacobi
 * stencil over cached imports, in one JVM ({@link io.softcmi.samples.JacobiStencil}) or with one
 * process per worker on real daemons ({@link io.softcmi.samples.JacobiProcesses},
 * {@link io.softcmi.samples.JacobiWorker}).
 */
package io.softcmi.samples;
