import PermissionDomain

/// An ordered, append-only list of migrations, with the applied ids kept in the
/// `schema_migrations` table (STYLE 12).
///
/// ``migrate(_:)`` applies the pending migrations in order, each in its own `BEGIN IMMEDIATE`
/// transaction together with its `schema_migrations` row, so a crash leaves each one applied or
/// not. A database that has applied an id the code does not know is refused.
package struct Migrator: Sendable {
    /// The known migrations, in order.
    package private(set) var migrations: [Migration] = []

    /// Creates a migrator.
    /// - Parameter migrations: the migrations in the order they must run; ids must be unique.
    package init(_ migrations: [Migration] = []) {
        for migration in migrations { register(migration) }
    }

    /// Appends a migration. A duplicate id is a programming error.
    package mutating func register(_ migration: Migration) {
        precondition(!migrations.contains { $0.id == migration.id }, "duplicate migration id \(migration.id)")
        migrations.append(migration)
    }

    /// Appends a migration built from an id and SQL.
    package mutating func register(_ id: String, sql: String) {
        register(Migration(id: id, sql: sql))
    }

    private static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            id TEXT PRIMARY KEY NOT NULL,
            applied_order INTEGER NOT NULL
        ) STRICT
        """

    /// The ids recorded as applied, in the order they were applied; empty for a new database.
    package func appliedIDs(_ database: Database) throws -> [String] {
        let exists = try database.withStatement(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'"
        ) { try $0.step() }
        guard exists else { return [] }
        return try database.withStatement("SELECT id FROM schema_migrations ORDER BY applied_order") { statement in
            var ids: [String] = []
            while try statement.step() { ids.append(statement.string(at: 0) ?? "") }
            return ids
        }
    }

    /// The known migrations not yet applied, in order.
    /// - Throws: ``MigrationError/databaseNewerThanCode(unknownIDs:)``.
    package func pendingMigrations(_ database: Database) throws -> [Migration] {
        let applied = try appliedIDs(database)
        let known = Set(migrations.map(\.id))
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.databaseNewerThanCode(unknownIDs: unknown) }
        let appliedSet = Set(applied)
        return migrations.filter { !appliedSet.contains($0.id) }
    }

    /// Throws unless every known migration is applied and none is unknown (for readiness).
    package func checkMigrated(_ database: Database) throws {
        let pending = try pendingMigrations(database)
        if !pending.isEmpty { throw MigrationError.pending(ids: pending.map(\.id)) }
    }

    /// Applies the pending migrations, each in its own immediate transaction (none when nothing is
    /// pending).
    /// - Parameters:
    ///   - database: a writable connection outside any transaction.
    ///   - progress: told how far long data steps are (for logging).
    /// - Returns: the ids applied now.
    @discardableResult
    package func migrate(_ database: Database, progress: Migration.Progress? = nil) throws -> [String] {
        // Up to date: read without the write lock, so that a command opens a database another
        // process is writing to now and waits for that lock only when it writes itself.
        if try !appliedIDs(database).isEmpty, try pendingMigrations(database).isEmpty { return [] }
        try database.inTransaction(.immediate) { try database.execute(Self.createTable) }
        var appliedNow: [String] = []
        for migration in try pendingMigrations(database) {
            try database.inTransaction(.immediate) {
                // Another process may have applied it since we looked; the write lock is ours now.
                guard try !appliedIDs(database).contains(migration.id) else { return }
                try database.execute(migration.sql)
                try migration.dataStep?(database, progress ?? { _, _, _ in })
                try database.withStatement(
                    "INSERT INTO schema_migrations (id, applied_order) VALUES (?, (SELECT count(*) FROM schema_migrations) + 1)"
                ) { statement in
                    statement.bind(migration.id, at: 1)
                    try statement.execute()
                }
                appliedNow.append(migration.id)
            }
        }
        return appliedNow
    }
}
