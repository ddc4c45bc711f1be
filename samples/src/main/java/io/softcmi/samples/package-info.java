/**
 * Runnable samples of the CMI API, compiled on every build and exercised by tests:
 * {@link io.softcmi.samples.SampleCode} (the Sample Code of {@code cmi(7)}),
 * {@link io.softcmi.samples.SharedSegmentExchange} (two processes sharing a segment) and
 * {@link io.softcmi.samples.Demo}, which runs both ({@code bin/softcmi demo}).
 */
package io.softcmi.samples;
