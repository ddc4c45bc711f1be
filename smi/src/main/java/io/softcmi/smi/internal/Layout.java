package io.softcmi.smi.internal;

/**
 * Where SMI keeps its shared state. Two kinds of CMI segment carry it:
 * <pre>
 * bootstrap segment (one per job, made by smirun, homed on rank 0's node)
 *   0      MAGIC                       "SMIBOOT1"
 *   8      SIZE                        number of processes
 *   16     JOINED                      processes that published their control segment (atm_cas)
 *   24     ABORT                       0, or 0x100 | exit code of the first SMI_Abort (atm_cas)
 *   64     FINALIZING[4]               bitmap of 256 bits: bit r set once process r entered SMI_Finalize
 *                                      (atm_cas; {@link Departures})
 *   2048   HEARTBEAT[rank]             8 bytes per process: watchdog heartbeats; when it finalized,
 *                                      FINISHED | the number of barriers it passed (negative)
 *   4096   ENTRY[rank]                 1 KiB per process: the descriptor of its control segment
 *
 * control segment (one per process, homed on its node, 1 MiB; others write into it to wake it)
 *   0      MAGIC                       "SMICTRL1"
 *   64     BARRIER_ROUND[round]        8 rounds of 8 bytes: the last barrier whose round was posted here
 *                                      (dissemination barrier: by process (rank - 2^round) mod SIZE)
 *   128    SLEEPERS                    threads of this process blocked in its notification inbox
 *   1024   SIGNAL[sender]              8 bytes per sender: signals received from it
 *   4096   QNODE[mutex]                16 bytes per mutex: MCS queue node (LOCKED, NEXT = rank + 1)
 *   8192   MUTEX_TAIL[mutex]           8 bytes per mutex homed here: tail of its queue (rank + 1, 0 = free)
 *   12288  PC[counter]                 8 bytes per progress counter: this process's value
 *   16384  ANNOUNCE                    count, then the export slots of the segments made by the last collective creation
 *   32768  MSG[sender]                 128 bytes per sender: SEQ, LEN, 56 data bytes (small messages)
 *   65536  MSG_ACK[receiver]           8 bytes per receiver: messages of this process it consumed
 *   69632  LOOP[loop]                  32 bytes per scheduled loop: WORK (next | end << 32), DONE, RATE
 *   71680  SPEED                       time of this process's SMI_Evaluate_speed kernel (double bits)
 *   72704  PT2PT[owner]                8 bytes per owner: its last PT2PT region for this process (seq << 32 | slot)
 *   74752  PAIR[peer]                  8 bytes per peer: pairwise rendezvous count (PT2PT create and free)
 *   100000 BENCH                       a word benchmarks hit with atm_cas
 *   131072 EXPORT[slot]                1 KiB per slot: descriptors of segments this process exported
 * </pre>
 */
final class Layout {
    static final int MAX_PROCS = 256;
    static final int ENTRY_SIZE = 1024;

    static final long BOOT_MAGIC_VALUE = 0x31544f4f42494d53L; // "SMIBOOT1" little-endian
    static final long BOOT_MAGIC = 0;
    static final long BOOT_SIZE = 8;
    static final long BOOT_JOINED = 16;
    static final long BOOT_ABORT = 24;
    static final long BOOT_FINALIZING = 64;
    static final long BOOT_HEARTBEAT = 2048;
    static final long BOOT_ENTRY = 4096;

    static final long CTRL_MAGIC_VALUE = 0x314c52544349494dL;
    static final long CTRL_SIZE = 1 << 20;
    static final long CTRL_MAGIC = 0;
    static final long CTRL_BARRIER_ROUND = 64;
    /** Rounds of the dissemination barrier: ceil(log2(MAX_PROCS)). */
    static final int BARRIER_ROUNDS = 8;
    static final long CTRL_SLEEPERS = 128;
    static final long CTRL_SIGNAL = 1024;
    static final long CTRL_QNODE = 4096;
    static final int MAX_MUTEXES = 256;
    static final long CTRL_MUTEX_TAIL = 8192;
    static final long CTRL_PC = 12288;
    static final int MAX_PCS = 64;
    static final long CTRL_ANNOUNCE = 16384;
    static final int MAX_ANNOUNCE = 1024;
    static final long CTRL_MSG = 32768;
    static final int MSG_SLOT = 128;
    static final long CTRL_MSG_ACK = 65536;
    static final long CTRL_LOOP = 69632;
    static final int MAX_LOOPS = 32;
    static final int LOOP_BYTES = 32;
    static final long CTRL_SPEED = 71680;
    static final long CTRL_PT2PT = 72704;
    static final long CTRL_PAIR = 74752;
    static final long CTRL_BENCH = 100000;
    static final long CTRL_EXPORT = 131072;
    static final int EXPORT_SLOTS = (int) ((CTRL_SIZE - CTRL_EXPORT) / ENTRY_SIZE);

    /** Heartbeat bit of a process that finalized; the other bits count the barriers it passed. */
    static final long FINISHED = Long.MIN_VALUE;

    private Layout() {
    }

    /**
     * @param barriers the barriers a process passed, its last one included
     * @return its heartbeat once it finalized
     */
    static long finished(long barriers) {
        return FINISHED | barriers;
    }

    /** @return whether a heartbeat says its process finalized */
    static boolean isFinished(long heartbeat) {
        return (heartbeat & FINISHED) != 0;
    }

    /** @return the barriers a finalized process passed, from its heartbeat */
    static long barriersPassed(long heartbeat) {
        return heartbeat & ~FINISHED;
    }

    static long bootstrapSize(int procs) {
        long raw = BOOT_ENTRY + (long) procs * ENTRY_SIZE;
        return (raw + 65535) & ~65535L;
    }
}
