package io.softcmi.vmmc;

/**
 * What {@code vmmc_EndRedir} reports: the redirected data is in the user buffer from word
 * {@code firstWordOffset} for {@code numWords} words.
 *
 * @param numWords the number of words redirected (0 if none)
 * @param firstWordOffset the index in the user buffer of the first redirected word
 */
public record Redirection(long numWords, long firstWordOffset) {
}
