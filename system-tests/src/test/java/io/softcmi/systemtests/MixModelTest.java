package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The checker of the random-mix test ({@link MixModel}, {@link MixPlan}) flags each kind of
 * violation it is meant to catch, and accepts what release consistency allows (a stale value
 * before any acquire), so {@link CacheOrderingTest} can fail on a real violation. In process,
 * no cluster.
 */
class MixModelTest {
    private static final MixPlan PLAN = new MixPlan(7, 2_000);

    /** Process 1's first publication {@code k} that covers a store, and a word {@code w} it covers. */
    private record Covered(int k, int w) {
    }

    private static Covered coveredByProcess1() {
        for (int k = 1; k <= PLAN.publications(1); k++) {
            for (int w : MixPlan.ownWords(1)) {
                if (PLAN.published(1, k, w) > 0) {
                    return new Covered(k, w);
                }
            }
        }
        throw new AssertionError("process 1 published no store with this seed");
    }

    @Test
    void shouldDrawTheSamePlanFromTheSameSeed() {
        MixPlan again = new MixPlan(7, 2_000);
        for (int p = 0; p < MixPlan.PROCESSES; p++) {
            assertEquals(PLAN.steps(p), again.steps(p));
            assertEquals(MixPlan.Op.PUBLISH, PLAN.steps(p).get(2_000).op(), "the final publication");
        }
        int w = coveredByProcess1().w();
        assertEquals(PLAN.stores(w), PLAN.published(1, PLAN.publications(1), w), "the last publication covers every store");
    }

    @Test
    void shouldFlagAnOlderValueAfterAcquiringAPublication() {
        Covered c = coveredByProcess1();
        int w = c.w();
        int floor = PLAN.published(1, c.k(), w);
        MixModel m = new MixModel(PLAN, 0);
        m.loadPub(1, c.k());
        m.load(w, 0); // observed but not acquired yet: a stale value is allowed
        assertEquals(0, m.violations());
        m.acquire();
        m.load(w, floor == 1 ? 0 : LitmusWord.encode(w, floor - 1));
        assertEquals(1, m.violations(), () -> String.join("; ", m.described()));
        m.load(w, LitmusWord.encode(w, floor));
        assertEquals(1, m.violations());
    }

    @Test
    void shouldBindWhatAnAtmCasReturnedAtOnce() {
        Covered c = coveredByProcess1();
        MixModel m = new MixModel(PLAN, 2);
        m.casPub(1, c.k());
        m.load(c.w(), 0);
        assertEquals(1, m.violations());
    }

    @Test
    void shouldFlagAReadThatGoesBack() {
        int w = MixPlan.ownWords(1)[0];
        MixModel m = new MixModel(PLAN, 0);
        m.load(w, LitmusWord.encode(w, 2));
        m.load(w, LitmusWord.encode(w, 1));
        assertEquals(1, m.violations());
        m.loadPub(1, 2);
        m.loadPub(1, 1);
        assertEquals(2, m.violations());
    }

    @Test
    void shouldFlagAnOwnWordThatDoesNotReadBackItsLastStore() {
        int w = MixPlan.ownWords(0)[0];
        MixModel m = new MixModel(PLAN, 0);
        long v = m.store(w);
        m.load(w, v);
        assertEquals(0, m.violations());
        m.store(w);
        m.load(w, v);
        assertEquals(1, m.violations());
    }

    @Test
    void shouldCountValuesNeverWrittenThereApart() {
        int w = MixPlan.ownWords(1)[0];
        int other = MixPlan.ownWords(1)[1];
        MixModel m = new MixModel(PLAN, 0);
        m.load(w, LitmusWord.encode(other, 1));
        m.load(w, LitmusWord.encode(w, 1) ^ 0x100000000L); // torn: a check bit off
        m.load(w, LitmusWord.encode(w, PLAN.stores(w) + 1));
        assertEquals(3, m.malformed());
        assertEquals(0, m.violations());
    }

    @Test
    void shouldFlagCountersThatAreNotExact() {
        MixModel m = new MixModel(PLAN, 0);
        m.loadPub(1, PLAN.publications(1) + 1);
        assertEquals(1, m.violations());
        m.published(1, 0);
        m.published(2, 0);
        assertEquals(2, m.violations());
    }
}
