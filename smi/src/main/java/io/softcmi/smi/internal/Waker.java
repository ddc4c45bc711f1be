package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import java.util.function.LongPredicate;

/**
 * How SMI processes wake each other: a waiter waits for a word of its own control segment (local
 * memory) to change; the waker stores the word into the waiter's control segment and wakes it.
 * No waiter polls remote memory. Implementations: {@link NotifyWaker} (store, then a CMI segment
 * notification; the default) and {@link PollingWaker} (store, then the waiter polls its local word
 * with {@link Backoff}; chosen with {@code SMI_WAKER=poll}).
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
     * @return the word's value that satisfied it
     */
    long await(long offset, LongPredicate done);

    /**
     * As {@link #await}, without the load barrier at the end: for a caller that waits for
     * several words in a row and makes one load barrier after the last ({@link Job#barrier}).
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
     * @return the index of a word that satisfied it
     */
    int awaitAny(long offset, int count, IndexedCondition done);

    /** A condition on word {@code i} having value {@code v}. */
    @FunctionalInterface
    interface IndexedCondition {
        boolean test(int i, long v);
    }
}
