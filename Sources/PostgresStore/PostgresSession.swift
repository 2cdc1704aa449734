import AuditKeys
import Foundation
import PermissionDomain

/// The permission model's reads and writes over one pooled connection, inside the
/// transaction that ``PostgresPermissionStore`` began: `REPEATABLE READ READ ONLY` for a read,
/// a writing transaction that holds the chain head's lock for a write.
///
/// Every query is a ``PreparedStatement`` (fixed ones in `static let`s, filtered listings
/// through ``PreparedStatement/cached(_:)``); listings are keyset-paged with row-value
/// comparisons (https://www.postgresql.org/docs/15/functions-comparisons.html#ROW-WISE-COMPARISON)
/// over the `COLLATE "C"` keys, in the same order as SQLite's store.
struct PostgresSession: PermissionWriter {
    let connection: PostgresConnection
    /// What a write body changed and audited (nil outside writes): see ``PostgresChangeTracker``.
    let changes: PostgresChangeTracker?
    /// The per-user keys of the audit log's personal fields; nil for sessions that neither
    /// append to nor read the audit log's entries (the follower, the catalogue).
    let keyring: AuditKeyring?

    /// The version floor as the writer's batch read it (nil outside a batch: read each time).
    let versionFloorMemo: VersionFloorMemo?

    init(
        connection: PostgresConnection, tracking changes: PostgresChangeTracker? = nil, keyring: AuditKeyring? = nil,
        versionFloorMemo: VersionFloorMemo? = nil
    ) {
        self.connection = connection
        self.changes = changes
        self.keyring = keyring
        self.versionFloorMemo = versionFloorMemo
    }

    /// ``keyring``, which a session that appends to or reads the audit log must have.
    var requiredKeyring: AuditKeyring {
        guard let keyring else { preconditionFailure("the audit log is used without the store's keyring") }
        return keyring
    }

    /// A stored value that does not parse: the database was changed outside this program.
    static func corrupt(_ table: String, _ column: String) -> PostgresError {
        PostgresError(sqlState: "XX001", message: "unexpected value in \(table).\(column)")
    }

    /// Runs `statement` with `parameters`, decoding each row.
    func rows<Row>(
        _ statement: PreparedStatement, _ parameters: [PostgresValue] = [], decode: (PostgresRow) throws -> Row
    )
        throws -> [Row]
    {
        let result = try connection.query(statement, parameters)
        var rows: [Row] = []
        rows.reserveCapacity(result.count)
        for index in 0..<result.count { rows.append(try decode(result[index])) }
        return rows
    }

    /// Runs `statement` with `parameters` and decodes the first row, if any.
    func row<Row>(
        _ statement: PreparedStatement, _ parameters: [PostgresValue] = [], decode: (PostgresRow) throws -> Row
    )
        throws -> Row?
    {
        let result = try connection.query(statement, parameters)
        return result.count == 0 ? nil : try decode(result[0])
    }

    /// Runs a statement without rows; returns the rows it changed.
    @discardableResult
    func run(_ statement: PreparedStatement, _ parameters: [PostgresValue]) throws -> Int {
        try connection.execute(statement, parameters)
    }

    /// The page size SQL gets: at least 1 (the protocol requires `limit >= 1`).
    static func limit(_ limit: Int) -> PostgresValue { .int64(Int64(max(1, limit))) }
}

extension PostgresValue {
    /// Text, or NULL.
    static func optional(_ text: String?) -> PostgresValue { text.map(PostgresValue.text) ?? .null }
    /// Milliseconds since 1970, or NULL.
    static func date(_ date: Date?) -> PostgresValue { date.map { .int64($0.millisecondsSince1970) } ?? .null }
    /// An integer, or NULL.
    static func optional(_ value: Int64?) -> PostgresValue { value.map(PostgresValue.int64) ?? .null }
}

/// The version floor (``PostgresSession/versionFloor()``) that one writer batch read, so that
/// its bodies that create records ask the database once. Sound because the batch holds the
/// chain head's lock from before its first read: every other writer, on any replica, raises
/// the floor only in a batch of its own, which waits for that lock. An erasure in the batch
/// forgets the value (``forget()``), so the next body reads it again; a body rolled back
/// after a read can only leave it higher than the database's, which no version is hurt by.
/// Used by one batch on one thread.
final class VersionFloorMemo {
    private(set) var value: Int64?

    func remember(_ floor: Int64) { value = floor }
    func forget() { value = nil }
}
