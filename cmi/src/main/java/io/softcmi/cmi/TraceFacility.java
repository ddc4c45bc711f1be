package io.softcmi.cmi;

/**
 * The spec's trace facilities ({@code CMI_TRACE_FAC_*}): the parts of the library a client can
 * ask to trace through {@link CmiCallbacks#traceFacilities()}.
 */
public enum TraceFacility {
    /**
     * {@code CMI_TRACE_FAC_INI}: library initialization calls ({@code cmi_ini}, {@code ini_th},
     * {@code fini}).
     */
    INI,
    /**
     * {@code CMI_TRACE_FAC_CTRL}: control operations ({@code cmi_ctl}, {@code seg_ctl}, {@code
     * attr_get}).
     */
    CTRL,
    /**
     * {@code CMI_TRACE_FAC_SEG}: segment operations ({@code seg_get}, {@code seg_exp}, {@code
     * seg_imp}, {@code seg_at}, {@code seg_dt}, {@code rseg_del}).
     */
    SEG,
    /**
     * {@code CMI_TRACE_FAC_TOK}: access token operations ({@code tok_new}, {@code tok_newva},
     * {@code tok_del}).
     */
    TOK,
    /**
     * {@code CMI_TRACE_FAC_EVT}: event operations ({@code evt_get}, {@code evt_ret}).
     */
    EVT,
    /**
     * {@code CMI_TRACE_FAC_MEM}: memory operations: {@code cmi_enb}, flush epochs ({@code
     * open_fb}, {@code flush_fb}, {@code close_fb}) and {@code cflush}. The memory barriers and
     * {@code atm_cas} are not traced: they are data-path calls, checked without a trace point.
     */
    MEM;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_TRACE_FAC_"} followed by the constant's name, e.g. {@code "CMI_TRACE_FAC_INI"}
     */
    public String specName() {
        return "CMI_TRACE_FAC_" + name();
    }
}
