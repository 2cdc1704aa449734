import Foundation

/// Persistence of the permission model: `SQLiteStore` (one file, one process) and
/// `PostgresStore` (one database, several replicas). Small and concrete so that each method
/// maps to one SQL statement. Errors thrown by a body propagate unchanged; the store adds its
/// own errors.
///
/// Revisions: the audit log's `seq` is the store's version. Every change is audited, so the
/// entries after seq V say what changed since V; a store makes its reads see revision V only
/// after it forgot what it kept in memory about those changes (``visibleRevision()``).
public protocol PermissionStore: Sendable {
    /// Runs `body` on a consistent read snapshot; never waits for writers.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T

    /// Opens a consistent read snapshot that stays open until it is closed
    /// (``PermissionSnapshot``), on a connection of its own meanwhile, read from the database
    /// alone: it sees every write committed before the call, and never waits for writers.
    /// - Throws: ``PermissionError/unavailable(why:cause:)`` when no connection became free or
    ///   the database cannot be reached; the store's other errors.
    func openSnapshot() throws -> any PermissionSnapshot

    /// Runs `body` as one atomic, durable transaction, serialized with every other write.
    /// The store may group-commit several concurrent bodies, each atomic on its own (a
    /// savepoint): a body that throws leaves no trace. Returns after the commit is durable.
    func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T

    /// The newest revision (audit seq) whose changes reads in this process see, and whose
    /// audit entries they show.
    func visibleRevision() throws -> Int64

    /// What `key.created` records of a key's secret hash (``AuditChain/keyFingerprint(ofSecretHash:)``
    /// of the store's chain), so that ``AuditChainVerifier/unauditedKeys()`` can tell a swapped secret.
    func keyFingerprint(ofSecretHash secretHash: [UInt8]) -> String

    /// A revision that includes every write this process has acknowledged (for
    /// `Permission-Revision` on a write's response): reading at least it elsewhere shows them.
    func acknowledgedRevision() throws -> Int64

    /// Waits until ``visibleRevision()`` reaches `revision`, at most `timeout`; returns whether
    /// it did.
    func awaitRevision(_ revision: Int64, timeout: Duration) throws -> Bool

    /// The newest revision committed to the database by anyone (a read of the database where
    /// other processes write): a revision beyond it was never answered to any write.
    func committedRevision() throws -> Int64

    /// Whether a read of (user, app, service)'s status would be answered from memory now,
    /// without waiting on anything (an event loop may run it). A store on a local file answers
    /// true: its reads never wait for long.
    func answersFromMemory(user: UserID, app: AppID, service: ServiceID) -> Bool

    /// Whether any read may wait on the network (a database server): the API then runs reads
    /// on its worker threads unless ``answersFromMemory(user:app:service:)``.
    var readsMayWait: Bool { get }

    /// Whether what this process learned of other processes' commits is recent enough to
    /// trust what it keeps in memory beside the store (the API's verified keys): false on a
    /// PostgreSQL replica that has not read the change log for a second, whose memory may hold
    /// a key another replica revoked since. A store no other process writes is always fresh.
    var memoryIsFresh: Bool { get }

    /// Calls `observer` whenever reads here start to see newer revisions that may include
    /// changes made by another process (a replica), on whichever thread learned of them. A
    /// store that no other process writes never calls it: its writes return visible.
    func observeChanges(_ observer: @escaping @Sendable (VisibleChanges) -> Void)
}

/// What ``PermissionStore/observeChanges(_:)`` reports.
/// A store whose writes can complete without a thread waiting for them: the server's hot
/// writes hand their body over and answer when the completion comes, so no thread sleeps
/// through the commit (a durable write otherwise costs a thread two context switches more).
public protocol SubmittingPermissionStore: PermissionStore {
    /// Runs `body` as ``PermissionStore/write(_:)`` does (its own savepoint in a group commit)
    /// and calls `completion` with its result once it is durable, or with its error (the
    /// store's, as `write` would throw it). `completion` runs on the store's writer: it must be
    /// quick and must not wait for anything, least of all another write.
    func submit<T: Sendable>(
        _ body: @escaping @Sendable (any PermissionWriter) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)
}

public struct VisibleChanges: Sendable, Equatable {
    /// The revision reads see now.
    public var revision: Int64
    /// Whether API keys were created or revoked: cached verifications must be dropped.
    public var keysChanged: Bool
    /// Whether the log was found to have gone back (its newest entries deleted, or the database
    /// restored under this process): the seqs after `revision` will be given out again, so a
    /// reader following the log from a later position would skip the new entries.
    public var logWentBack: Bool

    public init(revision: Int64, keysChanged: Bool, logWentBack: Bool = false) {
        self.revision = revision
        self.keysChanged = keysChanged
        self.logWentBack = logWentBack
    }
}

extension PermissionStore {
    /// The last audit seq a reader sees.
    public func visibleRevision() throws -> Int64 {
        try read { try $0.lastAuditSeq() }
    }

    /// Every acknowledged write is visible to this process's reads as soon as it returns.
    public func acknowledgedRevision() throws -> Int64 {
        try visibleRevision()
    }

    /// Polls ``visibleRevision()`` every 5 ms.
    public func awaitRevision(_ revision: Int64, timeout: Duration) throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if try visibleRevision() >= revision { return true }
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// What this process sees: no other process writes.
    public func committedRevision() throws -> Int64 {
        try visibleRevision()
    }

    public func answersFromMemory(user: UserID, app: AppID, service: ServiceID) -> Bool { true }

    public var readsMayWait: Bool { false }

    public var memoryIsFresh: Bool { true }

    public func observeChanges(_ observer: @escaping @Sendable (VisibleChanges) -> Void) {}
}
