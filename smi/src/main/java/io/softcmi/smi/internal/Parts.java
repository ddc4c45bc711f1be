package io.softcmi.smi.internal;

/**
 * The collaborators of one SMI process, made in dependency order when it joins its job
 * ({@code SMI_Init}) and shut down in order at {@code SMI_Finalize}; the {@code Smi} facade
 * delegates each call to one of them.
 *
 * @param job the job
 * @param debug the debug log
 * @param page the page size regions are rounded to
 * @param regions the regions
 * @param mutexes the mutexes
 * @param counters the progress counters
 * @param signals the signals
 * @param messages the small messages
 * @param copier the copies' engine
 * @param transfers the memory movement calls
 * @param loops the scheduled loops
 * @param replication the replication of regions
 * @param watchdog the watchdog
 * @param topology the placement of processes on nodes
 * @param queries the answers of {@code SMI_Query}
 * @param clock the time calls
 */
public record Parts(Job job, Debug debug, long page, Regions regions, Mutexes mutexes, Counters counters,
    Signals signals, Messages messages, Copier copier, Transfers transfers, Loops loops, Replication replication,
    Watchdog watchdog, Topology topology, Queries queries, Clock clock) {

    /**
     * Joins the job {@code smirun} started (or makes a job of this one process) and makes the
     * collaborators.
     *
     * @return them
     */
    public static Parts start() {
        JobEnv env = JobEnv.from(System.getenv(), SysInfo.hostName());
        Debug debug = new Debug(env.debug());
        debug.rank(env.rank());
        Job job = Job.start(env, debug);
        Clock clock = new Clock();
        long page = SysInfo.pageSize(job.context().ctlInfo().protUnits());
        Regions regions = new Regions(job, page);
        Mutexes mutexes = new Mutexes(job);
        job.mutexes(mutexes);
        Counters counters = new Counters(job);
        Signals signals = new Signals(job);
        Messages messages = new Messages(job);
        Copier copier = new Copier(job);
        Loops loops = new Loops(job);
        Replication replication = new Replication(job, loops);
        Watchdog watchdog = new Watchdog(job, job.env().watchdogSeconds());
        Topology topology = new Topology(job);
        Parts parts = new Parts(job, debug, page, regions, mutexes, counters, signals, messages, copier,
            new Transfers(job, copier), loops, replication, watchdog, topology,
            new Queries(job, topology, regions, page), clock);
        debug.log("SMI_Init done: rank " + env.rank() + " of " + env.size() + " on node " + env.procNode()[env.rank()]);
        return parts;
    }

    /**
     * {@code SMI_Finalize}: tells the others this process is leaving (their waits for it fail,
     * {@link Job#departing}), lets the copy thread finish the copies posted so far, meets the
     * others at a barrier, ends the signal callbacks still waiting, then every region, the
     * watchdog and the job go.
     */
    public void finish() {
        job.departing();
        // Copies posted before SMI_Finalize (imemcpy) end first, before the barrier: after it,
        // this process frees its regions and the others theirs, which a copy may still use.
        copier.close();
        job.barrier();
        // Every process is in SMI_Finalize: signal callbacks still waiting take their signal or
        // fail, and end before the control segment they wait on goes.
        signals.close();
        regions.freeAll();
        watchdog.stop();
        job.finish();
    }
}
