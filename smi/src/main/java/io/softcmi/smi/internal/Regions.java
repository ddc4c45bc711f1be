package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.RegionFlag;
import io.softcmi.smi.RegionInfo;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code SMI_Create_shreg} and {@code SMI_Free_shreg}: makes regions of every implemented type out
 * of CMI segments. A process exports each segment it owns, publishes its descriptor in a slot of
 * the export table of its control segment and, for a collective creation, lists the slots in its
 * announce area; after a barrier every process reads the announce areas and descriptors it needs
 * and attaches the segments.
 */
public final class Regions {
    private static final long ANNOUNCE_BYTES = 8 + 4L * Layout.MAX_ANNOUNCE;

    private final Job job;
    private final long page;
    private final boolean[] slotUsed = new boolean[Layout.EXPORT_SLOTS];
    private final Map<Integer, RegionImpl> live = new LinkedHashMap<>();
    private int nextId = 1;
    private long creations;

    /**
     * @param job the job
     * @param page the page size regions are rounded to
     */
    public Regions(Job job, long page) {
        this.job = job;
        this.page = page;
    }

    int rank() {
        return job.rank();
    }

    /**
     * {@code SMI_Create_shreg}.
     *
     * @param type the distribution policy
     * @param info the description
     * @param flags creation flags
     * @return the region
     */
    public SmiRegion create(RegionType type, RegionInfo info, Set<RegionFlag> flags) {
        if (type == null || info == null || flags == null) {
            throw Errors.fail(SmiError.PARAM, "type, info and flags must not be null");
        }
        EnumSet<RegionFlag> f = flags.isEmpty() ? EnumSet.noneOf(RegionFlag.class) : EnumSet.copyOf(flags);
        checkFlags(type, f);
        boolean delayed = f.contains(RegionFlag.DELAYED);
        int n = job.size();
        int me = job.rank();
        try {
            return switch (type) {
                case UNDIVIDED -> undivided(info, delayed);
                case BLOCKED -> collective(type, positive(info), Split.blocked(info.size(), n, page), false);
                case CYCLIC -> collective(type, positive(info), Split.cyclic(info.size(), info.nbrSgmts(), n, page), false);
                case CUSTOMIZED -> collective(type, positive(info),
                    Split.customized(info.size(), info.sgmtOwner(), info.sgmtSize(), n, page), false);
                case FRAGMENTED -> collective(type, positive(info), Split.fragmented(info.size(), n, page), delayed);
                case SMP -> smp(positive(info));
                case LOCAL -> local(info, f.contains(RegionFlag.PRIVATE), me);
                case REMOTE, RDMA -> remote(type, info, delayed);
                case PT2PT -> pt2pt(info, delayed);
            };
        } catch (CmiException e) {
            throw Errors.fromCmi("SMI_Create_shreg(" + type + ")", e);
        } finally {
            if (isCollective(type)) {
                // Every process counts every collective creation, so all use the same announce area.
                creations++;
            }
        }
    }

    private static void checkFlags(RegionType type, EnumSet<RegionFlag> f) {
        if (f.contains(RegionFlag.REGISTER)) {
            if (type == RegionType.UNDIVIDED || type == RegionType.LOCAL || type == RegionType.PT2PT) {
                throw Errors.fail(SmiError.NOTIMPL, "SMI_SHM_REGISTER is not implemented (as in SMI itself)");
            }
            throw Errors.fail(SmiError.PARAM, "SMI_SHM_REGISTER is not valid for " + type);
        }
        EnumSet<RegionFlag> valid = switch (type) {
            case UNDIVIDED, PT2PT -> EnumSet.of(RegionFlag.DELAYED, RegionFlag.NONFIXED);
            case FRAGMENTED -> EnumSet.of(RegionFlag.DELAYED);
            case SMP -> EnumSet.of(RegionFlag.NONFIXED);
            case LOCAL -> EnumSet.of(RegionFlag.PRIVATE, RegionFlag.NONFIXED);
            case REMOTE -> EnumSet.of(RegionFlag.DELAYED, RegionFlag.NONFIXED);
            case RDMA -> EnumSet.of(RegionFlag.NONFIXED);
            case BLOCKED, CYCLIC, CUSTOMIZED -> EnumSet.noneOf(RegionFlag.class);
        };
        EnumSet<RegionFlag> bad = EnumSet.copyOf(f);
        bad.removeAll(valid);
        if (!bad.isEmpty()) {
            throw Errors.fail(SmiError.PARAM, "flags " + bad + " are not valid for SMI_SHM_" + type);
        }
    }

    private static RegionInfo positive(RegionInfo info) {
        if (info.size() <= 0) {
            throw Errors.fail(SmiError.PARAM, "region size must be positive, got " + info.size());
        }
        return info;
    }

    private RegionImpl register(RegionType type, long size, long createdSize, List<RegionImpl.Part> parts) {
        RegionImpl r = new RegionImpl(this, nextId++, type, size, createdSize, parts, null);
        live.put(r.id(), r);
        return r;
    }

    // ---- collective creation

    private RegionImpl collective(RegionType type, RegionInfo info, List<Split.Spec> specs, boolean delayed) {
        int me = job.rank();
        List<RegionImpl.Part> parts = new ArrayList<>();
        Map<Integer, Segments.Own> mine = exportOwned(specs, me);
        Map<Integer, int[]> announced = new HashMap<>();
        SmiException failure = null;
        for (int i = 0; i < specs.size(); i++) {
            Split.Spec s = specs.get(i);
            if (s.size() == 0) {
                continue;
            }
            if (s.owner() == me) {
                Segments.Own o = mine.get(i);
                RegionImpl.Part p = new RegionImpl.Part(s.start(), s.size(), 0, me, nodeOf(me), o.ref(), slotOf(o));
                p.own = o;
                p.map = o.map();
                parts.add(p);
                continue;
            }
            try {
                SlotRef sr = lookup(specs, i, announced);
                RegionImpl.Part p = new RegionImpl.Part(s.start(), s.size(), 0, s.owner(), nodeOf(s.owner()), sr.ref, sr.slot);
                if (!delayed) {
                    attach(p);
                }
                parts.add(p);
            } catch (SmiException | CmiException e) {
                failure = failure != null ? failure : e instanceof SmiException se ? se
                    : Errors.fromCmi("SMI_Create_shreg", (CmiException) e);
            }
        }
        if (failure != null) {
            release(parts);
            throw failure;
        }
        long total = specs.isEmpty() ? 0 : specs.get(specs.size() - 1).start() + specs.get(specs.size() - 1).size();
        return register(type, total, total, parts);
    }

    /** Exports this process's segments of a collective creation and announces their slots (or a failure), then meets the others. */
    private Map<Integer, Segments.Own> exportOwned(List<Split.Spec> specs, int me) {
        Map<Integer, Segments.Own> mine = new LinkedHashMap<>();
        RuntimeException failure = null;
        try {
            for (int i = 0; i < specs.size(); i++) {
                Split.Spec s = specs.get(i);
                if (s.owner() == me && s.size() > 0) {
                    Segments.Own o = job.segments().create(s.size(), true);
                    mine.put(i, o);
                    publish(o);
                }
            }
        } catch (CmiException | SmiException e) {
            failure = e;
        }
        if (mine.size() > Layout.MAX_ANNOUNCE) {
            failure = Errors.fail(SmiError.NOSEGMENT, "more than " + Layout.MAX_ANNOUNCE + " segments per process");
        }
        CmiMapping own = job.ownControl().map();
        long at = announceArea();
        if (failure != null) {
            own.putLong(at, -1);
        } else {
            own.putLong(at, mine.size());
            int k = 0;
            for (Segments.Own o : mine.values()) {
                own.putInt(at + 8 + 4L * k++, slotOf(o));
            }
        }
        job.barrier();
        if (failure != null) {
            for (Segments.Own o : mine.values()) {
                unpublish(o);
                job.segments().destroy(o);
            }
            throw failure instanceof CmiException ce ? Errors.fromCmi("SMI_Create_shreg", ce) : failure;
        }
        return mine;
    }

    private long announceArea() {
        return Layout.CTRL_ANNOUNCE + (creations & 1) * ANNOUNCE_BYTES;
    }

    private record SlotRef(SegmentRef ref, int slot) {
    }

    /** The descriptor of spec {@code i}, from its owner's announce area (read once per owner). */
    private SlotRef lookup(List<Split.Spec> specs, int i, Map<Integer, int[]> announced) {
        int owner = specs.get(i).owner();
        int index = 0;
        int count = 0;
        for (int j = 0; j < specs.size(); j++) {
            if (specs.get(j).owner() == owner && specs.get(j).size() > 0) {
                if (j < i) {
                    index++;
                }
                count++;
            }
        }
        int finalCount = count;
        int[] slots = announced.computeIfAbsent(owner, o -> readAnnounce(o, finalCount));
        if (slots == null || index >= slots.length) {
            throw Errors.fail(SmiError.NOSEGMENT, "process " + owner + " could not create its segments");
        }
        return new SlotRef(readEntry(owner, slots[index]), slots[index]);
    }

    private int[] readAnnounce(int owner, int count) {
        MemorySegment buf = MemorySegment.ofArray(new byte[8 + 4 * count]);
        job.control(owner).get(announceArea(), buf);
        long n = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        if (n != count) {
            return null;
        }
        int[] slots = new int[count];
        for (int k = 0; k < count; k++) {
            slots[k] = buf.get(ValueLayout.JAVA_INT_UNALIGNED, 8 + 4L * k);
        }
        return slots;
    }

    private SegmentRef readEntry(int owner, int slot) {
        if (slot < 0 || slot >= Layout.EXPORT_SLOTS) {
            throw Errors.fail(SmiError.PARAM, "no segment " + slot + " exported by process " + owner);
        }
        MemorySegment buf = MemorySegment.ofArray(new byte[Layout.ENTRY_SIZE]);
        job.context().rmb();
        job.control(owner).get(Layout.CTRL_EXPORT + (long) slot * Layout.ENTRY_SIZE, buf);
        SegmentRef ref = SegmentRef.decode(buf);
        if (ref == null) {
            throw Errors.fail(SmiError.PARAM, "process " + owner + " exports no segment with id " + slot);
        }
        return ref;
    }

    // ---- the other types

    private RegionImpl undivided(RegionInfo info, boolean delayed) {
        int n = job.size();
        int owner = Errors.checkRank(info.owner(), n, "owner");
        int me = job.rank();
        if (owner == me && info.size() <= 0) {
            throw Errors.fail(SmiError.PARAM, "region size must be positive, got " + info.size());
        }
        if (info.size() < 0 || info.offset() < 0) {
            throw Errors.fail(SmiError.PARAM, "size and offset must not be negative");
        }
        long full = Split.roundUp(info.size(), page);
        List<Split.Spec> specs = List.of(new Split.Spec(0, owner == me ? full : 1, owner));
        Map<Integer, Segments.Own> mine = exportOwned(owner == me ? specs : List.of(), me);
        if (owner == me) {
            Segments.Own o = mine.get(0);
            RegionImpl.Part p = new RegionImpl.Part(0, full, 0, me, nodeOf(me), o.ref(), slotOf(o));
            p.own = o;
            p.map = o.map();
            return register(RegionType.UNDIVIDED, full, full, List.of(p));
        }
        SlotRef sr = lookup(specs, 0, new HashMap<>());
        return window(RegionType.UNDIVIDED, info, owner, sr, delayed);
    }

    private RegionImpl window(RegionType type, RegionInfo info, int owner, SlotRef sr, boolean delayed) {
        long offset = Split.roundUp(info.offset(), page);
        long size = info.size() == 0 ? sr.ref.size() - offset : Split.roundUp(info.size(), page);
        if (offset > sr.ref.size() || size <= 0 || size > sr.ref.size() - offset) {
            throw Errors.fail(SmiError.PARAM, "window [" + offset + ", +" + size + ") is outside the " + sr.ref.size()
                + "-byte region of process " + owner);
        }
        RegionImpl.Part p = new RegionImpl.Part(0, size, offset, owner, nodeOf(owner), sr.ref, sr.slot);
        if (!delayed) {
            attach(p);
        }
        return register(type, size, sr.ref.size(), List.of(p));
    }

    private RegionImpl smp(RegionInfo info) {
        int myNode = nodeOf(job.rank());
        int first = job.env().firstProcOn(myNode); // this process runs there: never -1
        long size = Split.roundUp(info.size(), page);
        List<Split.Spec> specs = List.of(new Split.Spec(0, size, first));
        Map<Integer, Segments.Own> mine = exportOwned(first == job.rank() ? specs : List.of(), job.rank());
        RegionImpl.Part p;
        if (first == job.rank()) {
            Segments.Own o = mine.get(0);
            p = new RegionImpl.Part(0, size, 0, first, myNode, o.ref(), slotOf(o));
            p.own = o;
            p.map = o.map();
        } else {
            SlotRef sr = lookup(specs, 0, new HashMap<>());
            p = new RegionImpl.Part(0, sr.ref.size(), 0, first, myNode, sr.ref, sr.slot);
            attach(p);
        }
        return register(RegionType.SMP, p.size, p.size, List.of(p));
    }

    private RegionImpl local(RegionInfo info, boolean isPrivate, int me) {
        positive(info);
        if (info.owner() != me) {
            throw Errors.fail(SmiError.PARAM, "a LOCAL region's owner must be the calling process (" + me + "), got "
                + info.owner());
        }
        long size = Split.roundUp(info.size(), page);
        Segments.Own o = job.segments().create(size, !isPrivate);
        if (!isPrivate) {
            try {
                publish(o);
            } catch (SmiException e) {
                job.segments().destroy(o);
                throw e;
            }
        }
        RegionImpl.Part p = new RegionImpl.Part(0, size, 0, me, nodeOf(me), o.ref(), isPrivate ? -1 : slotOf(o));
        p.own = o;
        p.map = o.map();
        return register(RegionType.LOCAL, size, size, List.of(p));
    }

    private RegionImpl remote(RegionType type, RegionInfo info, boolean delayed) {
        int owner = Errors.checkRank(info.owner(), job.size(), "owner");
        if ((info.sgmtId() >>> 32) != owner) {
            throw Errors.fail(SmiError.PARAM, "sgmtId " + info.sgmtId() + " was not made by process " + owner);
        }
        int slot = (int) info.sgmtId();
        SlotRef sr = new SlotRef(readEntry(owner, slot), slot);
        return window(type, info, owner, sr, delayed);
    }

    // ---- PT2PT: the owner exports and tells the partner the slot; both meet pairwise

    private final Map<Integer, long[]> pairCounts = new HashMap<>();

    private long[] pair(int peer) {
        return pairCounts.computeIfAbsent(peer, p -> new long[4]);
    }

    /**
     * Pairwise rendezvous with {@code peer}: post ours, wait for theirs.
     *
     * @throws SmiException {@code OTHER} if {@code peer} entered {@code SMI_Finalize} without
     *         coming ({@link Departures})
     */
    private void meet(int peer) {
        long[] c = pair(peer);
        job.waker().post(job.control(peer), Layout.CTRL_PAIR + 8L * job.rank(), ++c[0]);
        long want = ++c[1];
        job.waker().await(Layout.CTRL_PAIR + 8L * peer, v -> v >= want, peer);
    }

    private RegionImpl pt2pt(RegionInfo info, boolean delayed) {
        int n = job.size();
        int me = job.rank();
        int owner = Errors.checkRank(info.owner(), n, "owner");
        int partner = Errors.checkRank(info.partner(), n, "partner");
        if (owner == partner || (me != owner && me != partner)) {
            throw Errors.fail(SmiError.PARAM, "a PT2PT region needs two different processes, the caller one of them"
                + " (owner " + owner + ", partner " + partner + ")");
        }
        if (me == owner) {
            positive(info);
            long size = Split.roundUp(info.size(), page);
            Segments.Own o = job.segments().create(size, true);
            try {
                publish(o);
            } catch (SmiException e) {
                job.segments().destroy(o);
                throw e;
            }
            long seq = ++pair(partner)[2];
            job.waker().post(job.control(partner), Layout.CTRL_PT2PT + 8L * me, (seq << 32) | slotOf(o));
            try {
                meet(partner);
            } catch (SmiException e) {
                // The partner entered SMI_Finalize instead of creating it: nobody will import it.
                unpublish(o);
                job.segments().destroy(o);
                throw e;
            }
            RegionImpl.Part p = new RegionImpl.Part(0, size, 0, me, nodeOf(me), o.ref(), slotOf(o));
            p.own = o;
            p.map = o.map();
            RegionImpl r = register(RegionType.PT2PT, size, size, List.of(p));
            r.peer(partner);
            return r;
        }
        long seq = ++pair(owner)[3];
        long word = job.waker().await(Layout.CTRL_PT2PT + 8L * owner, v -> (v >>> 32) >= seq, owner);
        int slot = (int) (word & 0xffffffffL);
        RegionImpl r;
        try {
            r = window(RegionType.PT2PT, info, owner, new SlotRef(readEntry(owner, slot), slot), delayed);
        } finally {
            meet(owner);
        }
        r.peer(owner);
        return r;
    }

    // ---- export table

    private void publish(Segments.Own o) {
        int slot = -1;
        for (int i = 0; i < slotUsed.length; i++) {
            if (!slotUsed[i]) {
                slot = i;
                break;
            }
        }
        if (slot < 0) {
            throw Errors.fail(SmiError.NOSEGMENT, "all " + slotUsed.length + " export slots of this process are in use");
        }
        slotUsed[slot] = true;
        slots.put(o, slot);
        CmiMapping own = job.ownControl().map();
        long at = Layout.CTRL_EXPORT + (long) slot * Layout.ENTRY_SIZE;
        own.put(at, o.ref().encode());
        job.context().wmb();
        own.putLong(at + SegmentRef.STATE, 1);
        job.context().wmb();
    }

    private final Map<Segments.Own, Integer> slots = new HashMap<>();

    private int slotOf(Segments.Own o) {
        Integer s = slots.get(o);
        return s == null ? -1 : s;
    }

    private void unpublish(Segments.Own o) {
        Integer slot = slots.remove(o);
        if (slot != null) {
            job.ownControl().map().putLong(Layout.CTRL_EXPORT + (long) slot * Layout.ENTRY_SIZE + SegmentRef.STATE, 0);
            job.context().wmb();
            slotUsed[slot] = false;
        }
    }

    private void attach(RegionImpl.Part p) {
        p.foreign = job.segments().attach(p.ref);
        p.map = p.foreign.map();
    }

    // ---- connect, free, lookups

    void connect(RegionImpl r) {
        try {
            for (RegionImpl.Part p : r.parts()) {
                if (p.map == null) {
                    attach(p);
                }
            }
        } catch (CmiException e) {
            throw Errors.fromCmi("SMI_Connect_shreg", e);
        }
    }

    void free(RegionImpl r) {
        if (isCollective(r.type())) {
            job.barrier();
        } else if (r.type() == RegionType.PT2PT) {
            meet(r.peer());
        }
        release(List.of(r.parts()));
        r.markFreed();
        live.remove(r.id());
    }

    private void release(List<RegionImpl.Part> parts) {
        for (RegionImpl.Part p : parts) {
            if (p.foreign != null) {
                job.segments().detach(p.foreign);
                p.foreign = null;
            }
            if (p.own != null) {
                unpublish(p.own);
                job.segments().destroy(p.own);
                p.own = null;
            }
            p.map = null;
        }
    }

    Mmu initMmu(RegionImpl r) {
        boolean collective = isCollective(r.type());
        if (!collective) {
            for (RegionImpl.Part p : r.parts()) {
                if (p.owner != job.rank() || p.own == null) {
                    throw Errors.fail(SmiError.PARAM, "only the owner of a " + r.type() + " region may manage its memory");
                }
            }
        }
        return Mmu.init(r, job, collective, page);
    }

    private static boolean isCollective(RegionType t) {
        return switch (t) {
            case UNDIVIDED, BLOCKED, CYCLIC, CUSTOMIZED, SMP, FRAGMENTED -> true;
            default -> false;
        };
    }

    /**
     * {@code SMI_Adr_to_region}.
     *
     * @param a an address
     * @return its region
     */
    public SmiRegion adrToRegion(SmiAddress a) {
        if (a == null || !(a.region() instanceof RegionImpl r) || r.freed() || !live.containsKey(r.id())
            || a.offset() < 0 || a.offset() >= r.size()) {
            throw Errors.fail(SmiError.PARAM, "address " + a + " is not in a region of this process");
        }
        return live.get(r.id());
    }

    /**
     * @param id a region id
     * @return the live region
     */
    public SmiRegion byId(int id) {
        return region(id);
    }

    private RegionImpl region(int id) {
        RegionImpl r = live.get(id);
        if (r == null) {
            throw Errors.fail(SmiError.PARAM, "no region with id " + id);
        }
        return r;
    }

    /**
     * {@code SMI_Q_SMI_REGION_CONNECTED}.
     *
     * @param id a region id
     * @return whether every segment of it is attached here
     */
    public boolean connected(int id) {
        return region(id).connected();
    }

    /**
     * {@code SMI_Q_SMI_REGION_ADPT}.
     *
     * @param id a region id
     * @return whether every segment of it is on this node (reached through shared memory only)
     */
    public boolean allLocal(int id) {
        for (RegionImpl.Part p : region(id).parts()) {
            if (!job.segments().isLocal(p.ref != null ? p.ref.node() : job.segments().myNode())) {
                return false;
            }
        }
        return true;
    }

    /** {@code SMI_Finalize}: frees what is left, in creation order (collective ones together with the others). */
    public void freeAll() {
        for (RegionImpl r : List.copyOf(live.values())) {
            release(List.of(r.parts()));
            r.markFreed();
        }
        live.clear();
    }

    private int nodeOf(int rank) {
        return job.env().procNode()[rank];
    }
}
