package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.wire.DataProtocol;

/**
 * The access errors of {@code cmi(7)} "Access Errors and Exceptions" as the data protocol's
 * fixed status codes ({@link DataProtocol}), in both directions. One table, used by the home
 * (which answers) and the client (which throws), so the codes never depend on enum order.
 */
public final class AccessStatus {
    private AccessStatus() {
    }

    /**
     * @param e an access error
     * @return its status code on the wire
     */
    public static byte toWire(CmiAccessError e) {
        return switch (e) {
            case ENABLE -> DataProtocol.STATUS_ENABLE;
            case TOKEN -> DataProtocol.STATUS_TOKEN;
            case PERM -> DataProtocol.STATUS_PERM;
            case SINVAL -> DataProtocol.STATUS_SINVAL;
            case UE -> DataProtocol.STATUS_UE;
            case TRANSIENT -> DataProtocol.STATUS_TRANSIENT;
            case SEG_BRK -> DataProtocol.STATUS_SEG_BRK;
            case NOPAGE -> DataProtocol.STATUS_NOPAGE;
            case CONSIST -> DataProtocol.STATUS_CONSIST;
        };
    }

    /**
     * @param status a reply status other than {@link DataProtocol#STATUS_OK}
     * @return the access error it reports; anything unknown (a newer home's code, a lost
     *         connection) reads as {@code TRANSIENT}, which the spec lets a caller retry
     */
    public static CmiAccessError fromWire(int status) {
        return switch (status) {
            case DataProtocol.STATUS_ENABLE -> CmiAccessError.ENABLE;
            case DataProtocol.STATUS_TOKEN -> CmiAccessError.TOKEN;
            case DataProtocol.STATUS_PERM -> CmiAccessError.PERM;
            case DataProtocol.STATUS_SINVAL -> CmiAccessError.SINVAL;
            case DataProtocol.STATUS_UE -> CmiAccessError.UE;
            case DataProtocol.STATUS_SEG_BRK -> CmiAccessError.SEG_BRK;
            case DataProtocol.STATUS_NOPAGE -> CmiAccessError.NOPAGE;
            case DataProtocol.STATUS_CONSIST -> CmiAccessError.CONSIST;
            default -> CmiAccessError.TRANSIENT;
        };
    }
}
