import Foundation
public import PermissionDomain

/// Revisions and the read model (``PostgresReadModel``) as the API sees them.
extension PostgresPermissionStore {
    /// How long a write waits for its entries to become visible when applying them itself
    /// failed (the follower then applies them).
    static let visibilityWaitAfterFailure: Duration = .seconds(1)

    /// After a commit, before its writers return: applies the log to its end (at least through
    /// the last entry the commit appended, and other replicas' entries before it), as the
    /// follower does, so that this replica's reads, audit log and change feed show the write
    /// at once, and acknowledges that seq (the writes' `Permission-Revision`).
    ///
    /// A batch that appended nothing (a write that changed nothing) still answers with state
    /// its bodies read, which may be another replica's change this one has not applied yet:
    /// it is acknowledged and applied through the chain head it locked, which every change it
    /// could read is at or before. So a no-op write's revision, read elsewhere with
    /// `Permission-Consistency: at-least`, shows the state it reported.
    /// - Parameters:
    ///   - sessions: the sessions of the bodies the commit made durable, on the connection
    ///     that committed them.
    ///   - head: the chain head's seq when the batch locked it, before its bodies ran.
    func didCommit(_ sessions: [PostgresSession], head: Int64) {
        guard let readModel, let connection = sessions.first?.connection else { return }
        let tip = max(head, sessions.map { $0.changes?.lastAppended ?? 0 }.max() ?? 0)
        guard tip > 0 else { return }
        readModel.acknowledge(tip)
        guard readModel.visibleRevision < tip else { return }
        do {
            try PostgresChangeFollower.follow(on: connection, model: readModel)
        } catch {
            // Committed all the same: the follower applies it; wait for that, boundedly, and
            // past that bound read from the database until it has.
            follower?.nudge()
            if !readModel.waitUntilVisible(tip, timeout: Self.visibilityWaitAfterFailure) {
                readModel.distrust(below: tip)
            }
        }
    }

    public func visibleRevision() throws -> Int64 {
        guard let readModel else { return try read { try $0.lastAuditSeq() } }
        return readModel.visibleRevision
    }

    public func acknowledgedRevision() throws -> Int64 {
        guard let readModel else { return try visibleRevision() }
        return readModel.acknowledgedRevision
    }

    public func awaitRevision(_ revision: Int64, timeout: Duration) throws -> Bool {
        guard let readModel else { return try visibleRevision() >= revision }
        if readModel.visibleRevision >= revision { return true }
        follower?.nudge()
        return readModel.waitUntilVisible(revision, timeout: timeout)
    }

    /// The database's last audit seq (one query).
    public func committedRevision() throws -> Int64 {
        try run(begin: Self.beginRead, lockHead: false) { try $0.lastAuditSeq() }
    }

    public func answersFromMemory(user: UserID, app: AppID, service: ServiceID) -> Bool {
        guard let readModel, let catalogue = readModel.trusted.catalogue,
            let definition = catalogue.definition(service), !catalogue.policyServices.contains(service)
        else { return false }
        return readModel.cache.contains(
            AuthorizationKey(user: user, app: app, service: service),
            withSettings: definition.hasLocationServicesSwitch)
    }

    public var readsMayWait: Bool { true }

    /// Fresh while the change log was read within ``PostgresReadModel/maximumStaleness``; a
    /// store opened without a read model keeps nothing in memory that could go stale.
    public var memoryIsFresh: Bool { readModel?.isFresh ?? true }

    public func observeChanges(_ observer: @escaping @Sendable (VisibleChanges) -> Void) {
        readModel?.observe(observer)
    }

    /// The read cache's counters, nil without a read model.
    package var readCacheStatistics: ReadCache.Statistics? { readModel?.cache.statistics }

    /// The revision reads see and whether memory is trusted now, for `/metrics`.
    package var readModelState: (visible: Int64, fresh: Bool)? {
        readModel.map { ($0.visibleRevision, $0.isFresh) }
    }
}
