import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import TestSupport
import Testing

@testable import PostgresStore
@testable import SQLiteStore

/// One store for one test: a SQLite file in a temporary directory (removed when released), or
/// a database of its own on ``PostgresServer/shared``, created with an ICU collation so that a
/// listing that is not byte-ordered on PostgreSQL shows.
final class StoreUnderTest: Sendable {
    /// Pooled connections per PostgreSQL store: few, since many tests run at once.
    static let postgresPoolSize = 3

    let kind: StoreKind
    let store: any PermissionStore & AuditChainVerifier
    /// The SQLite store, for the few checks of SQLite's own machinery (group commit, the chain
    /// tip cache); nil on PostgreSQL.
    let sqlite: SQLitePermissionStore?
    /// The file path or the connection string.
    private let location: String
    /// The PostgreSQL database's connection string, nil on SQLite.
    var postgresConnectionString: String? { kind == .postgres ? location : nil }
    /// The SQLite file's directory, removed when released; nil on PostgreSQL.
    private let directory: TemporaryDirectory?

    init(_ kind: StoreKind) throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let directory = try TemporaryDirectory()
            self.directory = directory
            location = directory.file("permissions.sqlite")
            let store = try SQLitePermissionStore.open(path: location, keyring: .forTests)
            sqlite = store
            self.store = store
        case .postgres:
            directory = nil
            location = try PostgresServer.shared.get().freshDatabase(icuLocale: "en-US")
            sqlite = nil
            store = try Self.openPostgres(location)
        }
    }

    /// A PostgreSQL store with a generous checkout timeout: the concurrency tests run more
    /// threads than pooled connections, and a busy machine must not fail them.
    private static func openPostgres(_ connectionString: String) throws -> PostgresPermissionStore {
        try PostgresPermissionStore.open(
            connectionString: connectionString, keyring: .forTests, poolSize: postgresPoolSize, checkoutTimeout: 60)
    }

    /// A second store on the same data: another process on the SQLite file, another replica
    /// on the PostgreSQL database.
    func openAgain() throws -> any PermissionStore & AuditChainVerifier {
        switch kind {
        case .sqlite: try SQLitePermissionStore.open(path: location, keyring: .forTests)
        case .postgres: try Self.openPostgres(location)
        }
    }

    /// The connections open snapshots hold now (``PermissionStore/openSnapshot()``): the
    /// SQLite store's snapshot connections, the PostgreSQL store's pooled connections (which
    /// nothing else holds between calls).
    var snapshotConnectionsInUse: Int {
        if let sqlite { return sqlite.snapshotConnectionsInUse }
        return (store as? PostgresPermissionStore)?.connectionsInUse ?? -1
    }

    /// Every audit row as stored (sealed personal fields and all), in seq order.
    func storedAuditRows() throws -> [AuditRecord] {
        if let sqlite {
            return try sqlite.pool.read { database in
                let columns = (AuditChain.columns + ["hash"]).joined(separator: ", ")
                return try database.withStatement("SELECT \(columns) FROM audit ORDER BY seq") { statement in
                    var records: [AuditRecord] = []
                    while try statement.step() { records.append(AuditRecord(row: statement)) }
                    return records
                }
            }
        }
        let postgres = try #require(store as? PostgresPermissionStore)
        return try postgres.pool.withConnection { connection in
            let columns = (AuditChain.columns.map { $0 == "user" ? "user_id" : $0 } + ["hash"]).joined(separator: ", ")
            return try PostgresSession(connection: connection).rows(.cached("SELECT \(columns) FROM audit ORDER BY seq")) {
                try AuditRecord(row: $0)
            }
        }
    }

    /// Runs `sql` (statements without rows) on the store's database outside any transaction:
    /// to put a database into a state an older version left it in.
    func execute(_ sql: String) throws {
        if let sqlite {
            try sqlite.pool.writeWithoutTransaction { try $0.execute(sql) }
            return
        }
        let postgres = try #require(store as? PostgresPermissionStore)
        try postgres.pool.withConnection { try $0.execute(sql) }
    }

    /// The id the store's migrations list `suffix`'s migration under (`11-version-floor` on
    /// SQLite, `8-version-floor` on PostgreSQL, for `version-floor`).
    func migrationID(endingWith suffix: String) throws -> String {
        let ids =
            kind == .sqlite
            ? PermissionSchema.migrations.migrations.map(\.id) : PostgresSchema.migrations.migrations.map(\.id)
        return try #require(ids.first { $0.hasSuffix("-" + suffix) })
    }

    /// The primary message of a store's own error (a trigger's or a constraint's), nil for
    /// any other error.
    static func message(of error: (any Error)?) -> String? {
        (error as? SQLiteError)?.message ?? (error as? PostgresError)?.message
    }

    /// Whether `error` is a store's unique-constraint violation.
    static func isUniqueViolation(_ error: (any Error)?) -> Bool {
        (error as? SQLiteError)?.isConstraintViolation == true || (error as? PostgresError)?.sqlState == "23505"
    }
}
