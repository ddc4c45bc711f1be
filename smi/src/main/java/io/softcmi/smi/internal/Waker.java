package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

/**
 * How SMI processes wake each other: a waiter waits for a word of its own control segment (local
 * memory) to change; the waker stores the word into the waiter's control segment and wakes it.
 * No waiter polls remote memory. Implementations: {@link NotifyWaker} (store, then a CMI segment
 * notification; the default) and {@link PollingWaker} (store, then the waiter polls its local word
 * with {@link Backoff}; chosen with {@code SMI_WAKER=poll}).
 *
 * <p>A wait that has gone on long enough to block runs its {@link WaitCheck} now and then (not on
 * every poll): it ends the process if the job is ending, and throws if the partner the wait is
 * for has entered {@code SMI_Finalize} ({@link Departures}).
 */
interface Waker {
    /**
     * Stores {@code value} at {@code offset} of a process's control segment, visible to it (store
     * barrier), and wakes it if it waits there.
     *
     * @param target that process's control segment, as attached here
     * @param offset the word
     * @param value the value
     */
    void post(CmiMapping target, long offset, long value);

    /**
     * Waits until the word at {@code offset} of this process's own control segment satisfies
     * {@code done}; then a load barrier has been made.
     *
     * @param offset the word
     * @param done the condition
     * @param partner the process whose post ends the wait ({@link Departures#NONE} if none in particular)
     * @return the word's value that satisfied it
     * @throws io.softcmi.smi.SmiException {@code OTHER} if {@code partner} entered SMI_Finalize and the word never will
     */
    long await(long offset, LongPredicate done, int partner);

    /**
     * As {@link #await(long, LongPredicate, int)} for a wait not tied to one partner.
     *
     * @param offset the word
     * @param done the condition
     * @return the word's value that satisfied it
     */
    default long await(long offset, LongPredicate done) {
        return await(offset, done, Departures.NONE);
    }

    /**
     * As {@link #await}, without the load barrier at the end and not tied to one partner: for a
     * caller that waits for several words in a row and makes one load barrier after the last
     * ({@link Job#barrier}).
     *
     * @param offset the word
     * @param done the condition
     * @return the word's value that satisfied it
     */
    long awaitLocal(long offset, LongPredicate done);

    /**
     * Waits until any of the words of an array in this process's own control segment satisfies
     * {@code done}.
     *
     * @param offset the first word
     * @param count the number of words (8 bytes apart)
     * @param done the condition on (index, value)
     * @param partner the process whose post ends the wait, or {@link Departures#ANY}
     * @return the index of a word that satisfied it
     * @throws io.softcmi.smi.SmiException {@code OTHER} if the partner(s) entered SMI_Finalize and no word ever will
     */
    int awaitAny(long offset, int count, IndexedCondition done, int partner);

    /**
     * Looks at the words of a waiter's own control segment once.
     *
     * @param own the control segment
     * @param offset the first word
     * @param count the number of words (8 bytes apart)
     * @param done the condition on (index, value)
     * @param seen where the satisfying word's value goes
     * @return the index of the first word that satisfies {@code done}, or -1 if none does
     */
    static int find(CmiMapping own, long offset, int count, IndexedCondition done, long[] seen) {
        for (int i = 0; i < count; i++) {
            long v = own.getLong(offset + 8L * i);
            if (done.test(i, v)) {
                seen[0] = v;
                return i;
            }
        }
        return -1;
    }

    /** A condition on word {@code i} having value {@code v}. */
    @FunctionalInterface
    interface IndexedCondition {
        boolean test(int i, long v);
    }

    /** What a wait runs now and then once it blocks ({@link Job#checkWait}). */
    @FunctionalInterface
    interface WaitCheck {
        /**
         * @param partner the process whose post ends the wait, {@link Departures#ANY} or {@link Departures#NONE}
         * @param satisfied the wait's condition, read again
         */
        void check(int partner, BooleanSupplier satisfied);
    }
}
