import PermissionDomain
import Synchronization

/// What the store keeps in memory beside the file, told about the writer's commits
/// (``CommitObserver``): the services that may have policies, always, and the read cache when
/// it is on.
///
/// Attached for the store's whole life, so the writer's `PRAGMA data_version` check runs with
/// the cache off too: a policy written by another process (a second server, the `sqlite3`
/// shell, a restore) is seen within ``DatabaseWriter/foreignCommitCheckInterval``. Such a
/// commit is also told to the store's change observers
/// (``SQLitePermissionStore/observeChanges(_:)``): a key that `permission-server keys revoke`
/// revoked stops working within that interval, not at the end of the key cache's lifetime, and
/// the observers hear of it before its revision shows (`ForeignCommitOrderTests`).
final class StoreCommitObserver: CommitObserver, Sendable {
    let policyServices: PolicyServices
    /// nil when the read cache is off.
    let tracker: ReadCacheTracker?
    /// The writer's witness of entries gone or changed (``AuditChainTipCache/rewrites``).
    let auditChainTip: AuditChainTipCache
    private let observers = Mutex<[@Sendable (VisibleChanges) -> Void]>([])
    /// ``AuditChainTipCache/rewrites`` when observers were last told.
    private let rewritesTold = Mutex<UInt64>(0)

    init(policyServices: PolicyServices, tracker: ReadCacheTracker?, auditChainTip: AuditChainTipCache) {
        self.policyServices = policyServices
        self.tracker = tracker
        self.auditChainTip = auditChainTip
    }

    func didAttach(_ database: Database) throws {
        policyServices.reload(from: database)
        try tracker?.didAttach(database)
    }

    func willCommit(_ database: Database) throws {
        try tracker?.willCommit(database)
    }

    func didCommit(_ database: Database) {
        tracker?.didCommit(database)
    }

    func didLoseTrack(_ database: Database) {
        policyServices.reload(from: database)
        let observers = observers.withLock { $0 }
        if let tracker, !observers.isEmpty {
            // Keys kept verified are forgotten before the other process's revision shows (its
            // entries are read only up to the revision shown): an event stream that would send
            // an entry committed after a `keys revoke` looks at its key again first and ends.
            let before = VisibleChanges(revision: tracker.cache.visibleAuditSeq, keysChanged: true)
            for observer in observers { observer(before) }
        }
        let lost = tracker?.loseTrack(database)
        // An entry this writer knew, gone or changed (the witness ran first, at the commit's
        // discovery), is the log gone back even where a refill has passed the old head since.
        let rewrites = auditChainTip.rewrites
        let rewritten = rewritesTold.withLock { told in
            defer { told = rewrites }
            return told != rewrites
        }
        guard !observers.isEmpty else { return }
        // What another process wrote is unknown: an API key may have been made or revoked.
        let revision = lost?.head ?? (try? database.lastAuditSeq()) ?? 0
        let changes = VisibleChanges(
            revision: revision, keysChanged: true, logWentBack: (lost?.wentBack ?? false) || rewritten)
        for observer in observers { observer(changes) }
    }

    /// Adds `observer`, called on the writer's queue after a commit of another process (or one
    /// whose outcome the writer could not follow): it must be quick.
    func observe(_ observer: @escaping @Sendable (VisibleChanges) -> Void) {
        observers.withLock { $0.append(observer) }
    }
}
