package io.softcmi.vmmc;

/**
 * The result codes of the manual's "VMMC Return Values" ({@code vmmc_result_t}): zero for
 * success, negative on error. {@link #errorStr()} is {@code vmmc_ErrorStr}.
 */
public enum VmmcResult {
    /** {@code vmmc_Success}: the call completed successfully. */
    SUCCESS(0, "vmmc_Success", "success"),
    /** {@code vmmcErr_BadAlignment}: a buffer or address is not aligned to a VMMC word. */
    BAD_ALIGNMENT(-1, "vmmcErr_BadAlignment", "buffer or address not aligned to a VMMC word"),
    /** {@code vmmcErr_BufAlreadyExists}: a receive buffer with this id is already exported. */
    BUF_ALREADY_EXISTS(-2, "vmmcErr_BufAlreadyExists", "receive buffer id already exported"),
    /** {@code vmmcErr_BadIbufState}: the imported receive buffer is in a bad state. */
    BAD_IBUF_STATE(-3, "vmmcErr_BadIbufState", "imported receive buffer is in bad state"),
    /** {@code vmmcErr_BadRbufState}: the exported receive buffer is in a bad state. */
    BAD_RBUF_STATE(-4, "vmmcErr_BadRbufState", "exported receive buffer is in bad state"),
    /** {@code vmmcErr_BadProxyExtension}: a transfer extends past the end of its imported buffer. */
    BAD_PROXY_EXTENSION(-5, "vmmcErr_BadProxyExtension", "transfer extends past the end of the imported buffer"),
    /** {@code vmmcErr_BadProxyAddr}: the proxy address belongs to no imported receive buffer. */
    BAD_PROXY_ADDR(-6, "vmmcErr_BadProxyAddr", "proxy address does not belong to an imported receive buffer"),
    /** {@code vmmcErr_BadSize}: the number of words is not positive. */
    BAD_SIZE(-7, "vmmcErr_BadSize", "number of words is not positive"),
    /** {@code vmmcErr_BadArg}: an argument is invalid. */
    BAD_ARG(-8, "vmmcErr_BadArg", "bad argument"),
    /** {@code vmmcErr_NotImplemented}: the feature is not implemented. */
    NOT_IMPLEMENTED(-9, "vmmcErr_NotImplemented", "not implemented"),
    /** {@code vmmcErr_UnblockedNotifications}: notifications are not blocked. */
    UNBLOCKED_NOTIFICATIONS(-10, "vmmcErr_UnblockedNotifications", "notifications are not blocked"),
    /** {@code vmmcErr_BlockedNotifications}: blocked notifications would deadlock the call. */
    BLOCKED_NOTIFICATIONS(-11, "vmmcErr_BlockedNotifications", "blocked notifications lead to deadlock"),
    /** {@code vmmcErr_NoPhysDestSpace}: no more imports can be made. */
    NO_PHYS_DEST_SPACE(-12, "vmmcErr_NoPhysDestSpace", "no more physical destination space"),
    /** {@code vmmcErr_NoVirtDestSpace}: no more DestSpace addresses. */
    NO_VIRT_DEST_SPACE(-13, "vmmcErr_NoVirtDestSpace", "no more virtual destination space"),
    /** {@code vmmcErr_NoMem}: VMMC cannot allocate memory. */
    NO_MEM(-14, "vmmcErr_NoMem", "cannot allocate memory"),
    /** {@code vmmcErr_NoSuchNode}: bad node id. */
    NO_SUCH_NODE(-15, "vmmcErr_NoSuchNode", "bad node id"),
    /** {@code vmmcErr_NoSuchProcess}: bad process id. */
    NO_SUCH_PROCESS(-16, "vmmcErr_NoSuchProcess", "bad process id"),
    /** {@code vmmcErr_NotInHandler}: the call cannot be used from within a notification handler. */
    NOT_IN_HANDLER(-17, "vmmcErr_NotInHandler", "call cannot be used from within a notification handler"),
    /** {@code vmmcErr_OverlappedBufs}: a new receive buffer would overlap an existing one. */
    OVERLAPPED_BUFS(-18, "vmmcErr_OverlappedBufs", "receive buffer would overlap an existing buffer"),
    /** {@code vmmcErr_InProgress}: an asynchronous request is pending. */
    IN_PROGRESS(-19, "vmmcErr_InProgress", "asynchronous request in progress"),
    /** {@code vmmcErr_BadAsyncHandle}: the asynchronous handle is not valid. */
    BAD_ASYNC_HANDLE(-20, "vmmcErr_BadAsyncHandle", "bad asynchronous handle"),
    /** {@code vmmcErr_StateHandle}: the request's completion was already reported. */
    STATE_HANDLE(-21, "vmmcErr_StateHandle", "request already checked after completion"),
    /** {@code vmmcErr_NoParent}: the process was not started by {@code vmmc_Spawn}. */
    NO_PARENT(-22, "vmmcErr_NoParent", "no parent process"),
    /** {@code vmmcErr_NoSuchError}: the value {@code vmmc_DataEnd} returns when no data arrived. */
    NO_SUCH_ERROR(-23, "vmmcErr_NoSuchError", "no data end recorded");

    private final int code;
    private final String specName;
    private final String text;

    VmmcResult(int code, String specName, String text) {
        this.code = code;
        this.specName = specName;
        this.text = text;
    }

    /** @return the numeric code: 0 for success, negative on error */
    public int code() {
        return code;
    }

    /** @return the manual's name, e.g. {@code vmmcErr_BadSize} */
    public String specName() {
        return specName;
    }

    /**
     * Implements {@code vmmc_ErrorStr} for this code.
     *
     * @return the manual's name and a description
     */
    public String errorStr() {
        return specName + ": " + text;
    }

    /**
     * The result with a numeric code.
     *
     * @param code a code returned by a VMMC call
     * @return its result, or {@link #BAD_ARG} for a code that is none
     */
    public static VmmcResult of(int code) {
        for (VmmcResult r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return BAD_ARG;
    }
}
