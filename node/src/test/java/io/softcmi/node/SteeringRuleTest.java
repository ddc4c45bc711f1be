package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SteeringRuleTest {
    @Test
    void shouldServeAClientThatCannotPollFromTheLoopOnItsCore() {
        assertEquals(1, SteeringRule.choose(0, 1, false, new int[] {5, 9}));
        assertEquals(1, SteeringRule.choose(1, 1, false, new int[] {5, 9}), "already there");
    }

    @Test
    void shouldKeepAPollingClientOffTheLoopOnItsCore() {
        assertEquals(0, SteeringRule.choose(0, 1, true, new int[] {5, 9}), "already on another core: stays");
        assertEquals(0, SteeringRule.choose(1, 1, true, new int[] {5, 9}), "on its core: moves away");
    }

    @Test
    void shouldMoveAPollingClientToTheLeastLoadedOtherLoop() {
        assertEquals(2, SteeringRule.choose(0, 0, true, new int[] {1, 7, 3, 4}));
        assertEquals(1, SteeringRule.choose(3, 3, true, new int[] {6, 2, 2, 0}), "the first of equals, never its own");
    }

    @Test
    void shouldLeaveAConnectionWhereItIsWhenItsCoreIsUnknownOrThereIsNoOtherLoop() {
        assertEquals(2, SteeringRule.choose(2, -1, false, new int[] {0, 0, 0}));
        assertEquals(2, SteeringRule.choose(2, -1, true, new int[] {0, 0, 0}));
        assertEquals(0, SteeringRule.choose(0, 0, true, new int[] {3}), "a single loop");
    }
}
