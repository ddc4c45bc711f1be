/**
 * Direct delivery (docs/notifications.md, "Direct delivery"; a softcmi extension behind
 * {@code io.softcmi.cmi.notify.Notifications#openInlet} and {@code #routeTo}): a process serves a
 * segment it created itself. {@link io.softcmi.cmi.internal.direct.DirectEndpoints} is one
 * context's side: its {@code InletServer} (one port and thread that reads every connection of the
 * context; {@code Inlet} per served segment) and one connection per other process, used both
 * ways ({@code InletConnection} its reading side, {@code RouteConnection} its writing side,
 * {@code Route} per inlet a route goes to); {@code InletFrames} is the wire format,
 * {@code InletAddress} an inlet's address. The engine's context implements
 * {@link io.softcmi.cmi.internal.direct.InletHost} ({@code ContextInletHost}). Not an API.
 */
package io.softcmi.cmi.internal.direct;
