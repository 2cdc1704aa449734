import Foundation
internal import Ownership
import PermissionDomain
import Synchronization

/// What a replica keeps in memory between the database and its reads: the read cache of
/// authorization records and users' settings, the catalogue (custom services, the services
/// that have policies), and the revision its reads see. One version drives all of it: the
/// audit `seq`. Entries are applied in order (``apply(_:after:catalogue:)``), by the writer
/// after its own commits and by the ``PostgresChangeFollower`` for everyone's; applying the
/// entries up to seq V first forgets everything they changed and only then shows V
/// (``visibleRevision``), so a read that asks for V never gets a value V replaced.
///
/// Staleness is bounded: the follower records when it last read the log to its end
/// (``synced(at:)``). When that is older than ``maximumStaleness`` (the database or the
/// follower's connection is down), reads stop trusting memory and go to the database, which
/// answers or fails (503): a replica never serves from memory what it cannot know is current.
final class PostgresReadModel: Sendable {
    /// How old the last complete read of the log may be for memory to be trusted.
    static let maximumStaleness: Duration = .seconds(1)
    /// Above this many records and users in one applied run, the cache is emptied instead.
    static let maximumTrackedChanges = 4_096

    let cache: ReadCache
    /// The catalogue and the revision of the snapshot it was read in (`asOf`). `catalogue` is
    /// nil until loaded, and after a failed load: every service may then have policies, and
    /// custom services are read from the database. The writer (after its own commits) and the
    /// follower apply entries at the same time, each loading the catalogue when they changed it:
    /// a load read in an older snapshot than the one held never replaces it, or a policy the
    /// newer one has would go unseen until the next change of the catalogue.
    private let catalogue = Mutex(HeldCatalogue())

    private struct HeldCatalogue {
        var catalogue: PostgresCatalogue?
        var asOf: Int64 = 0

        /// Keeps `loaded` unless what is held was read in a newer snapshot.
        mutating func offer(_ loaded: PostgresCatalogue, asOf revision: Int64) {
            guard revision >= asOf else { return }
            catalogue = loaded
            asOf = revision
        }
    }
    /// When the log was last read to its end, as nanoseconds of `clock`; `Int64.min`: never.
    private let lastSync = Atomic<Int64>(.min)
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    /// The newest seq a write of this process committed.
    private let acknowledged = Atomic<Int64>(0)
    /// Memory is not trusted while the visible revision is below this: a write of this process
    /// was acknowledged without being applied (``distrust(below:)``).
    private let distrustedBelow = Atomic<Int64>(0)
    private let observers = Mutex<[@Sendable (VisibleChanges) -> Void]>([])
    /// Wakes ``waitUntilVisible(_:timeout:)``; it guards nothing but the wait.
    private let visibility = Guarded(())
    /// Called when applied entries hold an erasure, this replica's or another's: the store's
    /// keyring forgets the audit keys it kept unwrapped.
    private let whenErased: @Sendable () -> Void

    init(cacheCapacity: Int, whenErased: @escaping @Sendable () -> Void = {}) {
        cache = ReadCache(capacity: cacheCapacity)
        origin = clock.now
        self.whenErased = whenErased
    }

    /// The revision reads see: every entry up to it has been applied.
    var visibleRevision: Int64 { cache.visibleAuditSeq }

    /// A revision including every write this process acknowledged.
    var acknowledgedRevision: Int64 { max(acknowledged.load(ordering: .acquiring), visibleRevision) }

    /// Whether the log was read to its end once, but not within `staleness`: the database has
    /// not answered the follower for that long (readiness says so without a round trip of its
    /// own, which would wait the answer timeout).
    func hasFallenBehind(by staleness: Duration) -> Bool {
        let synced = lastSync.load(ordering: .acquiring)
        guard synced != .min else { return false }
        return clock.now - origin - .nanoseconds(synced) >= staleness
    }

    /// Whether memory may be trusted now (see the type's summary), and shows every write this
    /// process acknowledged without applying it.
    var isFresh: Bool {
        let synced = lastSync.load(ordering: .acquiring)
        guard synced != .min else { return false }
        // 0 but after a failure: the visible revision (the cache's lock) is read only then.
        let floor = distrustedBelow.load(ordering: .acquiring)
        if floor > 0 {
            guard visibleRevision >= floor else { return false }
            _ = distrustedBelow.compareExchange(expected: floor, desired: 0, ordering: .acquiringAndReleasing)
        }
        return clock.now - origin - .nanoseconds(synced) < Self.maximumStaleness
    }

    /// A write of this process committed entries up to `seq` and returns before they could be
    /// applied (the connection failed after its commit, and the follower did not catch up in
    /// time): until they are, memory may still hold what they replaced, and reads go to the
    /// database, so that this replica still reads its own writes.
    func distrust(below seq: Int64) {
        _ = distrustedBelow.max(seq, ordering: .releasing)
    }

    /// Whether memory may be trusted and, if so, the catalogue (nil while unknown): what a read
    /// body decides once, when it begins.
    var trusted: (fresh: Bool, catalogue: PostgresCatalogue?) {
        guard isFresh else { return (false, nil) }
        return (true, catalogue.withLock { $0.catalogue })
    }

    /// The log was read to its end by a query that started at `instant`.
    func synced(at instant: ContinuousClock.Instant) {
        _ = lastSync.max((instant - origin).nanoseconds, ordering: .releasing)
    }

    /// Starts from `revision` with `loaded` as the catalogue, read in the same snapshot (at
    /// open, before any read).
    func start(at revision: Int64, catalogue loaded: PostgresCatalogue?) {
        catalogue.withLock { $0 = HeldCatalogue(catalogue: loaded, asOf: revision) }
        cache.removeAll(publishing: revision)
    }

    /// The log's head is behind the visible revision (its newest entries deleted, or the
    /// database restored under this replica): forgets everything, takes `loaded` as the
    /// catalogue, and shows `revision`, so that the entries numbered after it, old seqs given
    /// out again, are read and applied. The one way the revision goes back. Its observers are
    /// told (`logWentBack`; keys may have changed too).
    func rewind(to revision: Int64, catalogue loaded: PostgresCatalogue?) {
        catalogue.withLock { $0 = HeldCatalogue(catalogue: loaded, asOf: revision) }
        acknowledged.store(revision, ordering: .releasing)
        distrustedBelow.store(0, ordering: .releasing)  // what it waited for is gone
        cache.reset(publishing: revision)
        let shown = VisibleChanges(revision: revision, keysChanged: true, logWentBack: true)
        for observer in observers.withLock({ $0 }) { observer(shown) }
    }

    /// A write of this process committed entries up to `seq`.
    func acknowledge(_ seq: Int64) {
        _ = acknowledged.max(seq, ordering: .releasing)
    }

    func observe(_ observer: @escaping @Sendable (VisibleChanges) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Applies `entries`, read as the entries after `seq`: forgets what they changed, reloads
    /// the catalogue when they changed it, and then shows them.
    /// - Parameters:
    ///   - entries: consecutive entries from `seq + 1` (a gap is a broken promise of the log,
    ///     see ``PostgresSession/changes(after:limit:)``: the run is cut there, and debug
    ///     builds stop).
    ///   - catalogue: loads the catalogue, called when the entries changed it, with the last
    ///     audit seq of the snapshot it was read in (at least the entries' last).
    /// - Returns: the seq shown now (at least the last applied entry's).
    /// - Throws: what `catalogue` throws; nothing is shown then.
    @discardableResult
    func apply(
        _ entries: [ChangeLogEntry], after seq: Int64,
        catalogue load: () throws -> (catalogue: PostgresCatalogue, asOf: Int64)
    ) rethrows
        -> Int64
    {
        var changes = ReadModelChanges()
        var expected = seq + 1
        for entry in entries {
            guard entry.seq == expected else {
                assertionFailure("the change log skipped from \(expected - 1) to \(entry.seq)")
                break
            }
            changes.add(entry)
            expected += 1
        }
        return try apply(changes, catalogue: load)
    }

    /// Applies what a run of entries changed (``apply(_:after:catalogue:)``), all at once: reads
    /// see none of it before they see all of it.
    @discardableResult
    func apply(
        _ changes: ReadModelChanges, catalogue load: () throws -> (catalogue: PostgresCatalogue, asOf: Int64)
    ) rethrows
        -> Int64
    {
        guard changes.through > 0 else { return visibleRevision }
        if changes.catalogueChanged {
            do {
                let loaded = try load()
                catalogue.withLock { $0.offer(loaded.catalogue, asOf: loaded.asOf) }
            } catch {
                catalogue.withLock { held in
                    // Unknown: every service is queried, until a load as new as these entries.
                    held.catalogue = nil
                    held.asOf = max(held.asOf, changes.through)
                }
                throw error
            }
        }
        if changes.erasure { whenErased() }
        if changes.keysChanged {
            // Keys kept verified are forgotten before the revision that changed them shows: an
            // event stream that sends entries up to it, or a request that waited for it, looks
            // at its key again and finds it revoked.
            let before = VisibleChanges(revision: visibleRevision, keysChanged: true)
            for observer in observers.withLock({ $0 }) { observer(before) }
        }
        // An erasure names no user (its entry keeps only a pseudonym): forget everything.
        if changes.everything || changes.records.count + changes.settingsOf.count > Self.maximumTrackedChanges {
            cache.removeAll(publishing: changes.through)
        } else {
            cache.invalidate(
                keys: changes.records, users: changes.settingsOf, apps: changes.apps, publishing: changes.through)
        }
        visibility.withLock { $0.broadcast() }
        let shown = VisibleChanges(revision: visibleRevision, keysChanged: changes.keysChanged)
        for observer in observers.withLock({ $0 }) { observer(shown) }
        return shown.revision
    }

    /// Waits until ``visibleRevision`` reaches `revision`, at most `timeout`.
    func waitUntilVisible(_ revision: Int64, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        return visibility.withLock { access in
            while visibleRevision < revision {
                if !access.wait(until: deadline) { return visibleRevision >= revision }
            }
            return true
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
