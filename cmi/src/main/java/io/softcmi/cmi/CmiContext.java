package io.softcmi.cmi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The CMI context of a process: the spec's {@code cmi_ctxt}, returned by {@code cmi_ini}
 * ({@link Cmi#init(CmiVersion, CmiCallbacks)}). One method per {@code libcmi} function and per
 * {@code seg_ctl}, {@code cmi_ctl} and {@code attr_get} command.
 *
 * <p>The context is shared by all threads of the process, but every thread must be associated with
 * it before making CMI calls: the thread that called {@code init} is; others call {@link #iniTh()}.
 * Each association ends with {@link #fini()} (or {@link #close()}); the context is released when
 * the last thread leaves. Calls from a thread that is not associated fail with
 * {@link CmiError#INIT}, and so does every call that asks the node when the connection to it is
 * lost, the node does not answer within 60 s, or the waiting thread is interrupted (the calls
 * answered in this process, such as {@code ctlReconfTimeout}, {@code ctlClientConsist},
 * {@code ctlNodeAddrCmp}, {@code evtGet} and {@code enable}, do not ask it).
 *
 * <p>Failures throw {@link CmiException} carrying the spec error code, which
 * {@link Cmi#lastError()} also answers; accesses to CMI memory fail with
 * {@link CmiAccessException}. Methods are safe to call from any associated thread.
 */
public interface CmiContext extends AutoCloseable {
    /**
     * The API version negotiated by {@code cmi_ini} (a field of the spec's {@code cmi_ctxt}).
     *
     * @return the version in use: the lower of the requested version and
     *         {@link Cmi#LIBRARY_VERSION}
     */
    CmiVersion version();

    /**
     * The vendor id of the CMI library (a field of the spec's {@code cmi_ctxt}).
     *
     * @return the vendor id
     */
    int vendorId();

    /**
     * The device id of the CMI library (a field of the spec's {@code cmi_ctxt}).
     *
     * @return the device id
     */
    int deviceId();

    /**
     * The address of this context's node, as other nodes name it (the {@code cmi_naddr} found in
     * the spec's {@code cmi_ctxt}). Exchange it out of band to get node-specific tokens.
     *
     * @return this node's address
     */
    NodeAddress nodeAddress();

    /**
     * The platform capabilities ({@code CMI_CAP_*} flags of the spec's {@code cmi_ctxt}).
     *
     * @return the capabilities, an unmodifiable set
     */
    Set<CmiCapability> capabilities();

    /**
     * Implements {@code ini_th}: associates the calling thread with this context so that it may
     * make CMI calls. Each call is matched by a {@link #fini()} from the same thread.
     *
     * @throws CmiException with {@link CmiError#BOUND} if the calling thread is already associated
     *         with a context; {@link CmiError#INVAL} if this context has ended (there is no
     *         limit on the threads of a context, so never {@code NOMEM})
     */
    void iniTh();

    /**
     * Implements {@code fini}: dissociates the calling thread from this context and frees its
     * thread resources. The thread may make no further CMI calls until it calls {@link #iniTh()}
     * again. When the last thread leaves, the context is released: its segments, exports, imports,
     * tokens and attachments go, and other contexts may receive {@code CMI_EVENT_RCTXT_DOWN} or
     * {@code CMI_EVENT_HCTXT_DOWN}.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         any context; {@link CmiError#INVAL} if it is associated with another context
     */
    void fini();

    /**
     * Implements {@code seg_get}: allocates a segment on this node, owned by this context.
     *
     * @param size the size in bytes, a multiple of {@link CmiInfo#protUnits()}; for an
     *             {@link SegFlag#EXTENSIBLE} segment its maximum size (its break point starts at 0)
     * @param flags creation flags; empty for none
     * @return the new segment
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the size or flags are invalid (size not a
     *         multiple of the protection unit, conflicting consistency flags);
     *         {@link CmiError#NOTSUPP} if a flag is not supported (extensible segments without
     *         {@link CmiCapability#EXTENSIBLE_SEGMENTS}, mixed consistency modes without
     *         {@link CmiCapability#MIXED_CONSISTENCY}); {@link CmiError#NOMEM} if out of memory
     *         or reservation; {@link CmiError#PERM} if not permitted to allocate
     */
    CmiSegment segGet(long size, Set<SegFlag> flags);

    /**
     * Implements {@code seg_at}: attaches a segment (made by {@code seg_get} or {@code seg_imp})
     * to this process. The mapping is visible to all threads; a segment may be attached several
     * times with different flags.
     *
     * @param seg the segment to attach
     * @param flags attach flags; {@link AttachFlag#READ} for a read-only attach, empty for
     *              read/write
     * @return the mapping
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid or gone;
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#PERM} if not permitted;
     *         {@link CmiError#RECONFIG} if the segment is being reconfigured (quiesced);
     *         {@link CmiError#NOTSUPP} if the attach flags are not supported
     */
    CmiMapping segAt(CmiSegment seg, Set<AttachFlag> flags);

    /**
     * Implements {@code seg_dt}: detaches a mapping. Afterwards every access through it throws
     * {@link IllegalStateException}; the caller must make sure no thread still uses it.
     *
     * @param mapping a mapping returned by {@link #segAt(CmiSegment, Set)} of this context
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the mapping is not this context's or already
     *         detached
     */
    void segDt(CmiMapping mapping);

    /**
     * Implements {@code seg_exp}: exports a segment this process allocated so that other nodes can
     * import it. A segment may be exported several times, with different attributes.
     *
     * @param seg a segment made by {@link #segGet(long, Set)} of this context
     * @param attrs export attributes; empty for a cacheable export
     * @return the remote segment handle, to send to importing nodes
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid or imported;
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#PERM} if this process did
     *         not allocate the segment; {@link CmiError#NOTSUPP} if an attribute is not supported
     *         ({@link ExportAttr#WRITE_THROUGH} without {@link CmiCapability#WRITE_THROUGH})
     */
    RemoteSegmentHandle segExp(CmiSegment seg, Set<ExportAttr> attrs);

    /**
     * Implements {@code rseg_del}: releases the resources of an export made by
     * {@link #segExp(CmiSegment, Set)}. It neither revokes access (delete the tokens for that) nor
     * deletes the segment ({@link #segRemove(CmiSegment)}); copies of the handle already sent
     * remain valid until the token or segment goes.
     *
     * @param rseg a handle returned by {@code segExp} of this context
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the handle is invalid or already deleted
     */
    void rsegDel(RemoteSegmentHandle rseg);

    /**
     * Implements {@code seg_imp}: imports a segment exported by some node (this one included)
     * so that it can be attached. Access needs a token set with
     * {@link #segSetToken(CmiSegment, CmiToken)}. Importing processes must handle events.
     *
     * @param rseg the remote segment handle received from the exporting process
     * @return a new imported segment
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the handle is invalid, its segment gone, or
     *         the import conflicts with an ongoing one (cacheable versus write-through);
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#PERM} if not permitted
     */
    CmiSegment segImp(RemoteSegmentHandle rseg);

    /**
     * Looks a segment up by its id. A {@code cmi_seg} value has node scope: any process on the node
     * may use an id it was given. (Beyond the spec's functions: in C the {@code cmi_seg} value
     * itself is passed around.)
     *
     * @param id a {@link CmiSegment#id()} of a segment on this node
     * @return the segment
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if no such segment exists or it is gone
     */
    CmiSegment segFromId(long id);

    /**
     * Implements {@code seg_ctl(CMI_SEG_RM)}: marks a segment for deletion. Remote access stops at
     * once; its memory is reclaimed when the last process detaches.
     *
     * @param seg a segment this process created with {@code seg_get} or imported with
     *            {@code seg_imp}
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid;
     *         {@link CmiError#PERM} if this process neither created nor imported it
     */
    void segRemove(CmiSegment seg);

    /**
     * Implements {@code seg_ctl(CMI_SEG_TOKEN)}: sets the access token used for an imported
     * segment by all processes and threads of this node, replacing any previous one.
     *
     * @param imported a segment imported by this process with {@link #segImp(RemoteSegmentHandle)}
     * @param token a token made for the segment by its home
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid or not imported;
     *         {@link CmiError#PERM} if the token is node specific and made for another node, or
     *         this process did not import the segment
     */
    void segSetToken(CmiSegment imported, CmiToken token);

    /**
     * Implements {@code seg_ctl(CMI_SEG_STATUS)}: reports the status of a segment. For an import
     * the node asks the home and waits for its answer up to its suspicion time
     * ({@code cmid --suspect-after}, between 200 ms and 2 s), then reports the proxy's own view.
     *
     * @param seg the segment
     * @return its status
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid;
     *         {@link CmiError#PERM} if not permitted
     */
    SegStatus segStatus(CmiSegment seg);

    /**
     * Implements {@code seg_ctl(CMI_SEG_CHECK)}: checks whether part of a range of a
     * client-inconsistent segment needs recovery, typically after a
     * {@link RemoteContextDown} event. Done on the home node by the creating process.
     *
     * @param seg a segment this process created
     * @param offset the start of the range, a multiple of {@link CmiInfo#cacheLineSz()}
     * @param length the length of the range, a multiple of {@link CmiInfo#cacheLineSz()} and at
     *               most {@link CmiInfo#maxRecoSegsz()}
     * @return the lowest sub-range that needs recovery, or empty if none does
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment or range is invalid;
     *         {@link CmiError#PERM} if this process did not create the segment
     */
    Optional<SegRange> segCheck(CmiSegment seg, long offset, long length);

    /**
     * Implements {@code seg_ctl(CMI_SEG_RECO)}: declares a range of a client-inconsistent segment
     * recovered, so that accesses to it no longer fail with {@link CmiAccessError#CONSIST}.
     * Done on the home node by the creating process.
     *
     * @param seg a segment this process created
     * @param offset the start of the range, a multiple of {@link CmiInfo#cacheLineSz()}
     * @param length the length of the range, a multiple of {@link CmiInfo#cacheLineSz()} and at
     *               most {@link CmiInfo#maxRecoSegsz()}
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment or range is invalid;
     *         {@link CmiError#PERM} if this process did not create the segment
     */
    void segRecover(CmiSegment seg, long offset, long length);

    /**
     * Implements {@code seg_ctl(CMI_SEG_BRK)}: sets the break point (instantiated size) of an
     * extensible segment. Growing zero-fills the new memory and charges the context's
     * reservation; shrinking frees memory, and accesses beyond the new break fail with
     * {@link CmiAccessError#SEG_BRK}.
     *
     * @param seg an {@link SegFlag#EXTENSIBLE} segment this process created
     * @param breakSize the new break point in bytes, a multiple of {@link CmiInfo#protUnits()},
     *                  at most the segment's size
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid or not extensible, or
     *         the size is beyond the maximum or not a multiple of the protection unit;
     *         {@link CmiError#PERM} if this process did not create the segment;
     *         {@link CmiError#NOMEM} if there is not enough memory to grow it
     */
    void segBreak(CmiSegment seg, long breakSize);

    /**
     * Implements {@code seg_ctl(CMI_SEG_INFO)}: reports the attributes of a segment, local or
     * imported (they match).
     *
     * @param seg the segment
     * @return its attributes
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid;
     *         {@link CmiError#PERM} if not permitted
     */
    SegInfo segInfo(CmiSegment seg);

    /**
     * Implements {@code tok_new}: makes an access token for a whole segment, to be set by
     * importing nodes. Only the process that created the segment may make tokens for it.
     *
     * @param seg a segment this process created
     * @param node the node the token is for, or {@link NodeAddress#ANY} for a node-agnostic token
     * @param access the privileges the token grants
     * @return the token
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment or node address is invalid (or
     *         a node-agnostic token where node-specific tokens are required);
     *         {@link CmiError#PERM} if this process did not create the segment;
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#BOUND} if a token for
     *         that node already exists for the segment
     */
    CmiToken tokNew(CmiSegment seg, NodeAddress node, Set<Access> access);

    /**
     * Implements {@code tok_newva}: makes an access token for a range of a segment. Several range
     * tokens may exist for a segment, but not overlapping ones for the same node.
     *
     * @param seg a segment this process created
     * @param offset the start of the range, a multiple of {@link SegInfo#segProtAlign()}
     * @param size the length of the range, a multiple of {@link SegInfo#segProtSz()}
     * @param node the node the token is for, or {@link NodeAddress#ANY}
     * @param access the privileges the token grants
     * @return the token
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment, range or node address is
     *         invalid; {@link CmiError#PERM} if this process did not create the segment;
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#BOUND} if a token for
     *         an overlapping range already exists for that node; {@link CmiError#NOTSUPP} if
     *         the context negotiated version 1.0 (range tokens are 1.1)
     */
    CmiToken tokNewRange(CmiSegment seg, long offset, long size, NodeAddress node, Set<Access> access);

    /**
     * Implements {@code tok_del}: revokes an access token. Later accesses with it fail with
     * {@link CmiAccessError#TOKEN} on the accessing node. Only the process that made the token
     * may delete it.
     *
     * @param token a token made by this process
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the token is invalid or already deleted,
     *         or (the token then revoked all the same) if remote requests admitted under it are
     *         still in flight after the node's revoke drain ({@code cmid --revoke-drain}, waited
     *         for twice; the call blocks that long at most); {@link CmiError#PERM} if this
     *         process did not make it
     */
    void tokDel(CmiToken token);

    /**
     * Implements {@code attr_get(CMI_ATTR_RSEG_SIZE)}: the size of a remote segment handle.
     *
     * @param seg the segment the handle would be for
     * @return the length of {@link RemoteSegmentHandle#toBytes()} for it
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid
     */
    long attrRsegSize(CmiSegment seg);

    /**
     * Implements {@code attr_get(CMI_ATTR_TOKEN_SIZE)}: the size of an access token.
     *
     * @param seg the segment the token would be for
     * @return the length of {@link CmiToken#toBytes()} for it
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid
     */
    long attrTokenSize(CmiSegment seg);

    /**
     * Implements {@code attr_get(CMI_ATTR_NODEADDR_SIZE)}: the size of a node address.
     *
     * @return the length of {@link NodeAddress#toBytes()}
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context
     */
    long attrNodeAddrSize();

    /**
     * Implements {@code cmi_ctl(CMI_CTL_INFO)}: the current parameters and limits.
     *
     * @return the information
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if this context is invalid
     */
    CmiInfo ctlInfo();

    /**
     * Implements {@code cmi_ctl(CMI_CTL_CACHE_RSEG_SET)}: sets the size of the local cache backing
     * a remote segment (caches attached already shrink at their next miss), or, with
     * {@link CmiSegment#ALL}, this process's default for every segment it created or imported that
     * has no size of its own (taken by caches attached from then on).
     *
     * @param segOrAll a segment this process created or imported, or {@link CmiSegment#ALL}
     * @param bytes the cache size in bytes ({@code mpool_sz})
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment or size is invalid;
     *         {@link CmiError#PERM} if this process neither created nor imported the segment;
     *         {@link CmiError#NOTSUPP} if not supported
     */
    void ctlCacheRsegSet(CmiSegment segOrAll, long bytes);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_CACHE_RSEG_GET)}: the size of the local cache backing a
     * segment.
     *
     * @param seg the segment; not {@link CmiSegment#ALL}
     * @return the cache size in bytes ({@code mpool_sz})
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the segment is invalid or
     *         {@link CmiSegment#ALL}; {@link CmiError#NOTSUPP} if not supported
     */
    long ctlCacheRsegGet(CmiSegment seg);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_RECONF_TOUT)}: sets how long an operation may wait for a
     * network reconfiguration before an access exception is thrown.
     *
     * @param timeout the timeout ({@code rcfg_tout}, kept in milliseconds)
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the timeout is not positive or is longer
     *         than a day (any process may set its own: never {@code PERM})
     */
    void ctlReconfTimeout(Duration timeout);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_CLIENT_CONSIST)}: makes client-consistent the default mode of
     * segments this context creates afterwards; the client guarantees consistency across failures
     * and need not recover segments. It cannot be undone, but segments may still be created with
     * {@link SegFlag#CLIENT_INCONSIST}.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#NOTSUPP} if not supported
     */
    void ctlClientConsist();

    /**
     * Implements {@code cmi_ctl(CMI_CTL_NODE_CMAP_GET)}: asks for the connectivity map. The answer
     * comes later as exactly one {@link ConnectivityMap} event carrying {@code requestId}.
     *
     * @param requestId a non-zero id chosen by the client, not interpreted by the library
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if {@code requestId} is 0
     */
    void ctlNodeCmapGet(long requestId);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_MEM_RESERVE)}: reserves CMI memory for this context, or
     * resizes the reservation associated with it. Later segment allocations of the context
     * draw on the reservation.
     *
     * @param bytes the amount to reserve
     * @return the reservation: its key and the memory currently allocated against it
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if shrinking below the memory already allocated;
     *         {@link CmiError#NOMEM} if more than the available CMI memory is asked;
     *         {@link CmiError#PERM} if not permitted
     */
    Reservation ctlMemReserve(long bytes);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_MEM_RESERVE_DEL)}: deletes the reservation associated with
     * this context. Segments allocated from it stay valid; its key becomes invalid.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if no reservation is associated;
     *         {@link CmiError#PERM} if not permitted
     */
    void ctlMemReserveDel();

    /**
     * Implements {@code cmi_ctl(CMI_CTL_MEM_RESERVE_SET)}: associates this context with an existing
     * reservation (replacing any current one), or with none.
     *
     * @param key a reservation key ({@link Reservation#rsvKey()}), or 0 for no reservation
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the key is unknown or deleted (the current
     *         association is then unchanged); {@link CmiError#PERM} if not permitted
     */
    void ctlMemReserveSet(long key);

    /**
     * Implements {@code cmi_ctl(CMI_CTL_NODE_ADDR_CMP)}: finds which candidates name the same node
     * as {@code node}.
     *
     * @param node the node address to compare
     * @param candidates the node addresses to compare it with
     * @return the indexes in {@code candidates} of the addresses that match
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if any address is invalid
     */
    int[] ctlNodeAddrCmp(NodeAddress node, List<NodeAddress> candidates);

    /**
     * Implements {@code cmi_enb}: opens or closes the calling thread's CMI access epoch. Accesses to
     * any CMI segment outside it, remote or a local attach, fail with {@link CmiAccessError#ENABLE}.
     *
     * @param on {@code true} to enable access, {@code false} to disable it
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context (never {@code NOMEM}: nothing is allocated)
     */
    void enable(boolean on);

    /**
     * Implements {@code atm_cas}: atomic compare-and-swap of a 64-bit word, performed at the home
     * node (never on cached values). It is also a store barrier: earlier stores are visible
     * before it returns.
     *
     * @param m the mapping holding the word
     * @param offset the byte offset of the word into the segment, a multiple of 8
     * @param cmpval the value expected
     * @param swpval the value written if the word equals {@code cmpval}
     * @return the value of the word before the operation (equal to {@code cmpval} on success)
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the offset is misaligned;
     *         {@link CmiError#STORE} if the context's cached stores could not be written back
     *         first (then the CAS is not performed)
     * @throws IndexOutOfBoundsException if the word is not within the mapping
     * @throws IllegalStateException if the mapping was detached
     * @throws CmiAccessException as for a store, and with {@link CmiAccessError#PERM} if the token
     *         does not grant {@link Access#ATOMIC}
     */
    long atmCas(CmiMapping m, long offset, long cmpval, long swpval);

    /**
     * Implements {@code cflush}: synchronously writes the cache lines holding the given addresses
     * back to their home nodes. Allowed with or without an open flush epoch.
     *
     * @param addresses the addresses to flush
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if an address is invalid;
     *         {@link CmiError#STORE} if a line could not be written back (the home refused it or
     *         could not be reached); {@link CmiError#HW} if a local hardware error prevented flushing
     */
    void cflush(List<CmiAddress> addresses);

    /**
     * Implements {@code mb_fn}: a full memory barrier; loads and stores before it are performed
     * before loads and stores after it.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if this context is invalid;
     *         {@link CmiError#STORE} if the context's cached stores could not be written back
     */
    void mb();

    /**
     * Implements {@code rmb_fn}: a read memory barrier; loads before it complete before loads
     * after it.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if this context is invalid
     */
    void rmb();

    /**
     * Implements {@code wmb_fn}: a write memory barrier; stores before it are committed before
     * stores after it.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if this context is invalid;
     *         {@link CmiError#STORE} if the context's cached stores could not be written back
     */
    void wmb();

    /**
     * Implements {@code open_fb}: opens a flush epoch for the calling thread, from which its stores
     * are tracked so that {@code flush_fb} can write them back.
     *
     * @return the epoch, usable in try-with-resources ({@code close()} is {@code close_fb})
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if this context is invalid;
     *         {@link CmiError#NOMEM} if out of resources; {@link CmiError#BOUND} if the thread
     *         already has an epoch open; {@link CmiError#HW} if the hardware reports an error
     */
    FlushEpoch openFb();

    /**
     * Implements {@code flush_fb}: synchronously writes back to their home nodes all stores the
     * thread made since {@code open_fb} or the previous {@code flush_fb}.
     *
     * @param epoch the calling thread's open epoch
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the epoch is invalid, closed or not the
     *         thread's; {@link CmiError#STORE} if stores could not be flushed (network or remote
     *         failure; a {@link StoreFailure} event may follow); {@link CmiError#HW} if a local
     *         hardware error prevented flushing (a {@link HardwareFailure} event may follow)
     */
    void flushFb(FlushEpoch epoch);

    /**
     * Implements {@code close_fb}: flushes as {@link #flushFb(FlushEpoch)} does, then closes the
     * epoch (also when the flush failed).
     *
     * @param epoch the calling thread's open epoch
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the epoch is invalid, already closed or not
     *         the thread's; {@link CmiError#STORE} if stores could not be flushed, as
     *         {@code flush_fb} reports it (the spec's {@code close_fb} list does not name it, but
     *         a close flushes "as if the thread had invoked flush_fb()"); {@link CmiError#HW} if a
     *         local hardware error prevented flushing
     */
    void closeFb(FlushEpoch epoch);

    /**
     * Implements {@code evt_get}: takes the next pending notification event of this context,
     * without waiting. The event is then outstanding until given back with
     * {@link #evtRet(CmiEvent, EventReturn)}.
     *
     * @return the next event, or {@code null} if none is pending
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context
     */
    CmiEvent evtGet();

    /**
     * Like {@link #evtGet()} ({@code evt_get}), but waits up to {@code timeout} for an event
     * (beyond the spec, which only polls).
     *
     * @param timeout how long to wait at most; zero or negative means do not wait
     * @return the next event, or {@code null} if none arrived in time (or the waiting thread was
     *         interrupted: then its interrupt flag is set again)
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context
     */
    CmiEvent evtGet(Duration timeout);

    /**
     * Implements {@code evt_ret}: gives an event obtained from {@code evt_get} back to the library
     * with its completion status. For event types that require success (such as
     * {@link Quiesce}) the spec makes any status other than {@link EventReturn#DONE} fatal; softcmi
     * logs it as a warning (trace facility {@code EVT}) and goes on.
     *
     * <p>Events are records and compare by value, but the context tracks outstanding events by
     * identity: pass the very object {@code evtGet} returned, once. An equal copy is not that
     * event.
     *
     * @param event an outstanding event of this context
     * @param status {@link EventReturn#DONE} or {@link EventReturn#ERROR}
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         this context; {@link CmiError#INVAL} if the event is not outstanding in this context
     *         (not obtained from it, or already returned)
     */
    void evtRet(CmiEvent event, EventReturn status);

    /**
     * Ends the calling thread's association with this context: the same as {@link #fini()}, so that
     * a context can be used in try-with-resources by the thread that initialized it.
     *
     * @throws CmiException as {@link #fini()} does
     */
    @Override
    void close();
}
