import AuditKeys
internal import CSQLite
import Foundation
import PermissionDomain

/// The permission model's reads and writes over one connection: a pooled reader inside
/// `PermissionStore.read` (a deferred read transaction), or the writer inside a group-commit
/// savepoint. Three words, which fit an existential's inline buffer, so passing it as one does
/// not allocate.
///
/// Every query is a cached prepared statement (the per-request ones in a `StatementSlot`);
/// listings are keyset-paged with row-value comparisons that SQLite turns into index seeks
/// (https://www.sqlite.org/rowvalue.html).
struct StoreSession: PermissionWriter {
    /// What the sessions of one store share.
    final class Shared: Sendable {
        /// The services that may have policies.
        let policyServices: PolicyServices
        /// Readers only: the hot path's read cache (the writer reads its own uncommitted rows).
        let cache: ReadCache?
        /// The writer only: the audit chain's last entry, so an append reads nothing.
        let auditChainTip: AuditChainTipCache?
        /// The per-user keys of the audit log's personal fields.
        let keyring: AuditKeyring
        /// The writer only: empties the WAL once the transaction has committed
        /// (``Checkpointer/scrubAfterCommit()``), which an erasure asks for.
        let scrubWAL: (@Sendable () -> Void)?

        init(
            policyServices: PolicyServices, cache: ReadCache?, auditChainTip: AuditChainTipCache? = nil,
            keyring: AuditKeyring, scrubWAL: (@Sendable () -> Void)? = nil
        ) {
            self.policyServices = policyServices
            self.cache = cache
            self.auditChainTip = auditChainTip
            self.keyring = keyring
            self.scrubWAL = scrubWAL
        }
    }

    let database: Database
    /// nil: no policy shortcut and no cache, as the migrations and tools read.
    var shared: Shared? = nil
    /// ``ReadCache/generation`` taken before the reader's connection was checked out.
    var cacheGeneration: UInt64 = 0

    /// The services that may have policies (nil: always query).
    var policyServices: PolicyServices? { shared?.policyServices }

    /// A stored value that does not parse: the file was changed outside this program.
    static func corrupt(_ table: String, _ column: String) -> SQLiteError {
        .corrupt("unexpected value in \(table).\(column)")
    }

    /// Runs `sql` with `bind`, collecting `decode` for each row.
    func rows<Row>(_ sql: String, bind: (Statement) -> Void, decode: (Statement) throws -> Row) throws -> [Row] {
        try database.withStatement(sql) { try Self.collect($0, bind: bind, decode: decode) }
    }

    /// Runs `sql` with `bind` and decodes the first row, if any.
    func row<Row>(_ sql: String, bind: (Statement) -> Void, decode: (Statement) throws -> Row) throws -> Row? {
        try database.withStatement(sql) { statement in
            bind(statement)
            return try statement.step() ? try decode(statement) : nil
        }
    }

    /// Runs the statement of `slot` with `bind` and decodes the first row, if any.
    func row<Row>(_ slot: StatementSlot, bind: (Statement) -> Void, decode: (Statement) throws -> Row) throws -> Row? {
        try database.withStatement(slot) { statement in
            bind(statement)
            return try statement.step() ? try decode(statement) : nil
        }
    }

    /// Runs the statement of `slot`, which returns no rows, with `bind`.
    func run(_ slot: StatementSlot, bind: (Statement) -> Void) throws {
        try database.withStatement(slot) { statement in
            bind(statement)
            try statement.execute()
        }
    }

    /// Runs the statement of `slot` with `bind`, collecting `decode` for each row.
    func rows<Row>(_ slot: StatementSlot, bind: (Statement) -> Void, decode: (Statement) throws -> Row) throws -> [Row] {
        try database.withStatement(slot) { try Self.collect($0, bind: bind, decode: decode) }
    }

    private static func collect<Row>(
        _ statement: Statement, bind: (Statement) -> Void, decode: (Statement) throws -> Row
    ) throws -> [Row] {
        bind(statement)
        var rows: [Row] = []
        while try statement.step() { rows.append(try decode(statement)) }
        return rows
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, bind: (Statement) -> Void) throws {
        try database.withStatement(sql) { statement in
            bind(statement)
            try statement.execute()
        }
    }

    /// The page size SQL gets: at least 1 (the protocol requires `limit >= 1`).
    static func limit(_ limit: Int) -> Int64 { Int64(max(1, limit)) }
}

/// The raw values of an enumeration as bytes, built once, for `Statement.enumeration(_:at:_:_:)`.
struct RawValueTable<Value>: Sendable where Value: Sendable {
    private let entries: [(bytes: [UInt8], value: Value)]

    init(_ values: [Value], rawValue: (Value) -> String) {
        entries = values.map { (Array(rawValue($0).utf8), $0) }
    }

    func value(of bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        for entry in entries where entry.bytes.count == bytes.count {
            if entry.bytes.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) { return entry.value }
        }
        return nil
    }
}

extension Statement {
    /// A non-NULL text column, or a corruption error naming it.
    func requiredString(at index: Int32, _ table: String, _ column: String) throws -> String {
        guard let text = string(at: index) else { throw StoreSession.corrupt(table, column) }
        return text
    }

    /// A column holding a `RawRepresentable` enumeration's raw value.
    func enumeration<Value: RawRepresentable>(
        _ type: Value.Type, at index: Int32, _ table: String, _ column: String
    )
        throws -> Value where Value.RawValue == String
    {
        guard let text = string(at: index), let value = Value(rawValue: text) else {
            throw StoreSession.corrupt(table, column)
        }
        return value
    }

    /// A column holding one of `table`'s raw values, matched on the column's bytes without making
    /// a `String` (the hot path's status and reason).
    func enumeration<Value>(
        _ table: RawValueTable<Value>, at index: Int32, _ tableName: String, _ column: String
    )
        throws -> Value
    {
        guard let text = sqlite3_column_text(handle, index) else { throw StoreSession.corrupt(tableName, column) }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))
        guard let value = table.value(of: bytes) else { throw StoreSession.corrupt(tableName, column) }
        return value
    }

    /// A millisecond timestamp column, or nil when NULL.
    func date(at index: Int32) -> Date? {
        isNull(at: index) ? nil : Date(millisecondsSince1970: int64(at: index))
    }

    /// A comma-joined list column split into its parts (empty text is an empty list).
    func list(at index: Int32) -> [Substring] {
        guard let text = string(at: index), !text.isEmpty else { return [] }
        return text.split(separator: ",", omittingEmptySubsequences: false)
    }

    /// Binds a date as milliseconds, or NULL.
    func bind(_ date: Date?, at index: Int32) {
        if let date { bind(date.millisecondsSince1970, at: index) } else { bindNull(at: index) }
    }
}
