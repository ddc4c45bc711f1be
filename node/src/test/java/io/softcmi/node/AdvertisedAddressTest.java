package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code --advertise}: what a node puts into its address, for IPv4, IPv6, names and wildcards. */
class AdvertisedAddressTest {
    @Test
    void specificListenAddressIsAdvertisedAsIs() {
        assertEquals("127.0.0.1", AdvertisedAddress.choose("127.0.0.1", null));
        assertEquals("0:0:0:0:0:0:0:1", AdvertisedAddress.choose("[::1]", null));
        assertEquals("0:0:0:0:0:0:0:1", AdvertisedAddress.choose("::1", null));
    }

    @Test
    void wildcardIsReplacedByAnInterfaceAddressOfItsFamily() throws Exception {
        InetAddress v4 = InetAddress.getByName(AdvertisedAddress.choose("0.0.0.0", null));
        assertFalse(v4.isAnyLocalAddress());
        assertEquals(4, v4.getAddress().length);
        InetAddress v6 = InetAddress.getByName(AdvertisedAddress.choose("::", null));
        assertFalse(v6.isAnyLocalAddress());
        assertEquals(16, v6.getAddress().length);
    }

    @Test
    void namesAreResolvedOncePreferringTheListenersFamily() {
        assertEquals("127.0.0.1", AdvertisedAddress.choose("0.0.0.0", "127.0.0.1"));
        String local = AdvertisedAddress.choose("127.0.0.1", "localhost");
        assertTrue(InetAddressLoopback.is(local), local);
        assertThrows(IllegalArgumentException.class,
            () -> AdvertisedAddress.choose("127.0.0.1", "no-such-host.invalid"));
        assertTrue(AdvertisedAddress.isLiteral("[::1]"));
        assertTrue(AdvertisedAddress.isLiteral("10.1.2.3"));
        assertFalse(AdvertisedAddress.isLiteral("localhost"));
    }

    @Test
    void cmidParsesAdvertiseForms() {
        Path dir = Path.of("/tmp/x-advertise-test");
        NodeConfig c = Cmid.parse(new String[] {"--dir", dir.toString(), "--advertise", "10.0.0.5:7001"});
        assertEquals("10.0.0.5", c.advertiseHost());
        assertEquals(7001, c.advertisePort());
        c = Cmid.parse(new String[] {"--dir", dir.toString(), "--advertise", "[fd00::2]:7002"});
        assertEquals("[fd00::2]", c.advertiseHost());
        assertEquals(7002, c.advertisePort());
        c = Cmid.parse(new String[] {"--dir", dir.toString(), "--advertise", "fd00::2"});
        assertEquals("fd00::2", c.advertiseHost());
        assertEquals(0, c.advertisePort());
        c = Cmid.parse(new String[] {"--dir", dir.toString(), "--advertise", "node-a.example"});
        assertEquals("node-a.example", c.advertiseHost());
        assertNotEquals(null, c.advertiseHost());
        assertThrows(IllegalArgumentException.class,
            () -> Cmid.parse(new String[] {"--dir", dir.toString(), "--advertise", "h:notaport"}));
    }

    /** Loopback check on a numeric address string. */
    private static final class InetAddressLoopback {
        static boolean is(String numeric) {
            try {
                return InetAddress.getByName(numeric).isLoopbackAddress();
            } catch (java.io.IOException e) {
                return false;
            }
        }
    }
}
