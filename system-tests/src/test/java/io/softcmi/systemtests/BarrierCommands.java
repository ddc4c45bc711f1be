package io.softcmi.systemtests;

import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.FlushEpoch;
import java.util.List;
import java.util.function.Function;

/**
 * The barrier commands of {@link RemoteWorkers}, each one libcmi call on the command thread, for
 * tests of what a release reports (libcmi {@code CMI_ERR_STORE}). A failure answers as every
 * command's does ({@code ERROR CODE LASTERROR message}).
 * <pre>
 * open-fb                -> OK          (open_fb; the epoch is kept for the next two)
 * flush-fb               -> OK          (flush_fb of the kept epoch)
 * close-fb               -> OK          (close_fb of the kept epoch)
 * wmb | mb | rmb         -> OK
 * cflush-one ID OFF      -> OK          (cflush of one address of the attach of ID)
 * cas ID OFF CMP SWP     -> VALUE before (atm_cas)
 * </pre>
 */
final class BarrierCommands {
    private final CmiContext ctx;
    private final Function<String, CmiMapping> mappings;
    private FlushEpoch epoch;

    /**
     * @param ctx the worker's context
     * @param mappings the worker's attach of a segment id (as a word of the command)
     */
    BarrierCommands(CmiContext ctx, Function<String, CmiMapping> mappings) {
        this.ctx = ctx;
        this.mappings = mappings;
    }

    /** @return whether {@code command} is one of these commands */
    static boolean handles(String command) {
        return switch (command) {
            case "open-fb", "flush-fb", "close-fb", "wmb", "mb", "rmb", "cflush-one", "cas" -> true;
            default -> false;
        };
    }

    /**
     * Runs one command.
     *
     * @param a the command's words
     * @return the reply
     */
    String execute(String[] a) {
        switch (a[0]) {
            case "open-fb" -> epoch = ctx.openFb();
            case "flush-fb" -> ctx.flushFb(epoch);
            case "close-fb" -> ctx.closeFb(epoch);
            case "wmb" -> ctx.wmb();
            case "mb" -> ctx.mb();
            case "rmb" -> ctx.rmb();
            case "cflush-one" -> ctx.cflush(List.of(new CmiAddress(mappings.apply(a[1]), Long.parseLong(a[2]))));
            case "cas" -> {
                return "VALUE " + ctx.atmCas(mappings.apply(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3]),
                    Long.parseLong(a[4]));
            }
            default -> throw new IllegalArgumentException("not a barrier command: " + a[0]);
        }
        return "OK";
    }
}
