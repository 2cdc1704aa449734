import PermissionDomain

/// What the store keeps in memory beside the file, told about the writer's commits
/// (``CommitObserver``): the services that may have policies, always, and the read cache when
/// it is on.
///
/// Attached for the store's whole life, so the writer's `PRAGMA data_version` check runs with
/// the cache off too: a policy written by another process (a second server, the `sqlite3`
/// shell, a restore) is seen within ``DatabaseWriter/foreignCommitCheckInterval``.
final class StoreCommitObserver: CommitObserver, Sendable {
    let policyServices: PolicyServices
    /// nil when the read cache is off.
    let tracker: ReadCacheTracker?

    init(policyServices: PolicyServices, tracker: ReadCacheTracker?) {
        self.policyServices = policyServices
        self.tracker = tracker
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
        tracker?.didLoseTrack(database)
    }
}
