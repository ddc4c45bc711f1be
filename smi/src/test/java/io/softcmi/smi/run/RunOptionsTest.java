package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunOptionsTest {
    @Test
    void shouldParseEveryOptionOfTheManual() throws Exception {
        RunOptions o = RunOptions.parse(new String[] {"-np", "2", "-nodes", "a", "b", "-stdout", "out", "-stderr", "err",
            "-stdin", "in", "-v", "-t", "-debug", "-nolocal", "-xterm", "-pager", "Main", "x", "-y"});
        assertEquals(2, o.np());
        assertEquals(List.of("a", "b"), o.nodes());
        assertEquals("out", o.stdout());
        assertEquals("err", o.stderr());
        assertEquals("in", o.stdin());
        assertTrue(o.verbose() && o.test() && o.debug() && o.noLocal() && o.xterm() && o.pager());
        assertEquals("Main", o.program());
        assertEquals(List.of("x", "-y"), o.programArgs());
    }

    @Test
    void shouldStopAtDoubleDash() throws Exception {
        RunOptions o = RunOptions.parse(new String[] {"-machinefile", "m", "--", "-strange-main", "a"});
        assertEquals("m", o.machineFile());
        assertEquals("-strange-main", o.program());
        assertEquals(List.of("a"), o.programArgs());
        assertFalse(o.verbose());
    }

    @Test
    void shouldRequireNpBeforeNodes() {
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-nodes", "a", "Main"}));
    }

    @Test
    void shouldRejectUnknownOptionsMissingValuesAndMissingProgram() {
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-bogus", "Main"}));
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-np"}));
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-np", "0", "Main"}));
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-np", "2", "-nodes", "a"}));
        assertThrows(RunOptions.UsageException.class, () -> RunOptions.parse(new String[] {"-v"}));
    }
}
