package io.softcmi.vmmc;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class with a receiving and a sending endpoint, {@link #rx} and {@link #tx}, in one VMMC
 * session (named after the test class) on one host, "alpha", for the whole class.
 */
abstract class RxTxTestBase {
    @TempDir
    static Path share;
    static Endpoint rx;
    static Endpoint tx;

    @BeforeAll
    static void startEndpoints(TestInfo info) {
        Endpoint.useSession(share, info.getTestClass().orElseThrow().getSimpleName(), "alpha");
        rx = new Endpoint("rx");
        tx = new Endpoint("tx");
    }

    @AfterAll
    static void stopEndpoints() {
        Endpoint.closeAll(rx, tx);
    }
}
