public import AuditKeys
import Foundation
import PermissionDomain

/// Replacing the audit server key (``AuditKeyring``): `permission-server audit rotate-key`.
extension PostgresPermissionStore {
    /// Users' keys wrapped again per batch, between two progress reports.
    static let rewrapBatchSize = 1_000

    private static let lockCheckValue = PreparedStatement("SELECT check_value FROM audit_keyring WHERE id = 1 FOR UPDATE")
    private static let subjectCount = PreparedStatement("SELECT count(*) FROM audit_subjects")
    private static let subjectBatch = PreparedStatement(
        "SELECT user_id, pseudonym, wrapped_key FROM audit_subjects WHERE user_id > $1 ORDER BY user_id LIMIT $2")
    private static let updateSubject = PreparedStatement("UPDATE audit_subjects SET wrapped_key = $2 WHERE user_id = $1")
    private static let updateCheckValue = PreparedStatement("UPDATE audit_keyring SET check_value = $1 WHERE id = 1")

    private static let serverConnections = PreparedStatement(
        """
        SELECT count(*) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ANY($1::text[])
        """)

    /// How many connections other than this one a running server holds to the database
    /// `connectionString` names, by the names its connections report (``PostgresConnection/defaultApplicationName``
    /// and its change follower's): a replica keeps both open while it runs. Another
    /// `permission-server` command on the database (a `copy`, an `audit verify`) counts too. A
    /// connection string that sets its own `application_name` hides its server from this.
    public static func runningServerConnections(connectionString: String) throws -> Int {
        let connection = try PostgresConnection(connectionString, applicationName: "permission-service rotate-key")
        let rows = try connection.query(
            serverConnections,
            [.text("{\"\(PostgresConnection.defaultApplicationName)\",\"\(PostgresChangeFollower.applicationName)\"}")])
        guard rows.count == 1 else { return 0 }
        return Int(try rows[0].int64(at: 0))
    }

    /// Wraps every user's audit key again under `newKeyring`'s server key, makes the database's
    /// check value `newKeyring`'s, and appends one `audit.key.rotated` entry (actor `system`,
    /// `detail.subjects` the number of keys), in one transaction: an error or a lost connection
    /// leaves the database under the old key, whole. The users' keys themselves do not change,
    /// so no entry is rewritten and the chain still verifies.
    ///
    /// The audit chain's head is locked first, then the check value, in the order every write
    /// batch takes them (a write that makes a new user's key locks the check value under the
    /// head's lock, ``PostgresSession/sealer(_:)``): no write runs meanwhile, and a new user's
    /// key is either committed before and wrapped again here, or refused after, never left
    /// under the old key. Replicas still running on the old key cannot read the keys wrapped
    /// again: stop them first, start them with the new key after. This store keeps the old
    /// key: close it once this returns.
    /// - Parameter progress: after each batch: the keys done, and how many there are.
    /// - Returns: the number of users' keys wrapped again.
    /// - Throws: ``KeyRotationOutcomeUnknown`` when the connection failed at the commit (the
    ///   rotation may or may not be in the database); ``AuditKeyError/wrongServerKey`` when the database's key is no longer this
    ///   store's (rotated meanwhile); ``AuditKeyError/sameServerKey`` when `newKeyring` is the
    ///   key in use; ``AuditKeyError/unreadable(_:)`` when a stored key does not open with it.
    ///   The database is then unchanged.
    public func rotateAuditServerKey(
        to newKeyring: AuditKeyring, progress: (_ done: Int64, _ total: Int64) -> Void
    ) throws -> Int64 {
        guard let old = keyring else { preconditionFailure("a store opened without the audit keyring rotates nothing") }
        return try pool.withConnection { connection in
            try Self.inTransactionReportingCommit(connection) {
                let session = PostgresSession(connection: connection, keyring: newKeyring)
                _ = try session.lockAuditChainHead()
                let stored = try session.row(Self.lockCheckValue) { try $0.string(at: 0) }
                guard let stored, old.matches(checkValue: stored) else { throw AuditKeyError.wrongServerKey }
                guard !newKeyring.matches(checkValue: stored) else { throw AuditKeyError.sameServerKey }
                let total = try session.row(Self.subjectCount) { try $0.int64(at: 0) } ?? 0
                var done: Int64 = 0
                var after = ""
                while true {
                    let batch = try session.rows(Self.subjectBatch, [.text(after), .int64(Int64(Self.rewrapBatchSize))]) {
                        (user: try $0.string(at: 0), pseudonym: try $0.string(at: 1), wrappedKey: try $0.string(at: 2))
                    }
                    guard let last = batch.last else { break }
                    for subject in batch {
                        let wrapped = try old.rewrap(subject.wrappedKey, pseudonym: subject.pseudonym, under: newKeyring)
                        _ = try session.run(Self.updateSubject, [.text(subject.user), .text(wrapped)])
                    }
                    after = last.user
                    done += Int64(batch.count)
                    progress(done, total)
                }
                _ = try session.run(Self.updateCheckValue, [.text(newKeyring.newCheckValue())])
                try session.append(
                    AuditEntry(at: Date(), actor: .system, action: .auditKeyRotated, detail: ["subjects": String(done)]))
                return done
            }
        }
    }

    /// Runs `body` in a READ COMMITTED transaction whose commit, when the connection fails at
    /// it, is reported as ``KeyRotationOutcomeUnknown`` rather than as a failure: it may have
    /// been applied.
    private static func inTransactionReportingCommit<Result>(
        _ connection: PostgresConnection, _ body: () throws -> Result
    ) throws -> Result {
        try connection.execute(PostgresConnection.IsolationLevel.readCommitted.sql)
        let result: Result
        do {
            result = try body()
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
        do {
            try connection.commitOrReportUnknownOutcome()
        } catch let error as PostgresCommitOutcomeUnknown {
            throw KeyRotationOutcomeUnknown(cause: error.underlying.message)
        }
        return result
    }
}

/// The connection failed at the commit of an audit server key rotation: the database may be
/// under the old key or the new one. Opening it with either key tells (the other is refused).
public struct KeyRotationOutcomeUnknown: Error, CustomStringConvertible {
    /// The driver's message (it may name the database's host: for the log only).
    public let cause: String

    public var description: String {
        "the connection was lost during the commit, so the rotation may or may not have been applied: "
            + "`permission-server keys list --audit-key-file NEW` exits 0 if it was, 78 if not"
    }
}
