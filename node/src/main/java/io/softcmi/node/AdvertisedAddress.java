package io.softcmi.node;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The host a node puts into its node address and exported handles ({@code cmid --advertise}):
 * what other hosts connect to. A wildcard listen address ({@code 0.0.0.0}, {@code ::}) is no
 * place to connect to, so without {@code --advertise} it is replaced by an address of this host's
 * interfaces of the same family (the first non-loopback, non-link-local address of an interface
 * that is up, by interface index; loopback when there is none). Host names are resolved once,
 * here, at start; the node address carries the numeric address from then on.
 */
final class AdvertisedAddress {
    private AdvertisedAddress() {
    }

    /**
     * @param host a host as written on the command line: a name, an IPv4 address, or an IPv6
     *     address with or without brackets
     * @return the host without IPv6 brackets
     */
    static String unbracket(String host) {
        if (host.length() >= 2 && host.charAt(0) == '[' && host.charAt(host.length() - 1) == ']') {
            return host.substring(1, host.length() - 1);
        }
        return host;
    }

    /**
     * @param listenHost the listen host
     * @param advertiseHost the {@code --advertise} host, or null
     * @return the numeric host to advertise
     * @throws IllegalArgumentException if a name does not resolve
     */
    static String choose(String listenHost, String advertiseHost) {
        InetAddress listen = resolve(listenHost);
        if (advertiseHost != null) {
            return resolvePreferring(advertiseHost, listen instanceof Inet6Address).getHostAddress();
        }
        if (!listen.isAnyLocalAddress()) {
            return listen.getHostAddress();
        }
        InetAddress found = interfaceAddress(listen instanceof Inet6Address);
        return found.getHostAddress();
    }

    /**
     * @param host a host name or literal
     * @return whether it is an IPv4 or IPv6 literal (with or without brackets), not a name
     */
    static boolean isLiteral(String host) {
        try {
            InetAddress.ofLiteral(unbracket(host));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Resolves a name once; of its addresses, the first of the listener's family, else the first. */
    private static InetAddress resolvePreferring(String host, boolean ipv6) {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(unbracket(host));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve host " + host + ": " + e.getMessage());
        }
        for (InetAddress a : all) {
            if (ipv6 == (a instanceof Inet6Address)) {
                return a;
            }
        }
        return all[0];
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(unbracket(host));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve host " + host + ": " + e.getMessage());
        }
    }

    private static InetAddress interfaceAddress(boolean ipv6) {
        List<NetworkInterface> nics = new ArrayList<>();
        try {
            nics.addAll(Collections.list(NetworkInterface.getNetworkInterfaces()));
        } catch (SocketException e) {
            // fall through to loopback
        }
        nics.sort((a, b) -> Integer.compare(a.getIndex(), b.getIndex()));
        for (NetworkInterface nic : nics) {
            try {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
            } catch (SocketException e) {
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                boolean family = ipv6 ? a instanceof Inet6Address : a instanceof Inet4Address;
                if (family && !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress()) {
                    return withoutScope(a);
                }
            }
        }
        return ipv6 ? loopback6() : loopback4();
    }

    private static InetAddress withoutScope(InetAddress a) {
        if (a instanceof Inet6Address v6 && v6.getScopeId() != 0) {
            try {
                return InetAddress.getByAddress(v6.getAddress());
            } catch (UnknownHostException e) {
                return a;
            }
        }
        return a;
    }

    private static InetAddress loopback4() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static InetAddress loopback6() {
        try {
            byte[] b = new byte[16];
            b[15] = 1;
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
