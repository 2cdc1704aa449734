/// One schema change: an id that never changes once released, the SQL that makes it, and
/// optionally a data step in Swift that runs after the SQL in the same transaction.
package struct Migration: Sendable, Equatable {
    /// Reports the progress of a long data step: (a message, rows done, rows in all).
    package typealias Progress = @Sendable (_ message: String, _ done: Int64, _ total: Int64) -> Void
    /// A data step: the migrated connection, inside the migration's transaction.
    package typealias DataStep = @Sendable (_ database: Database, _ progress: Progress) throws -> Void

    /// The id recorded in `schema_migrations` once applied.
    package let id: String
    /// One or more `;`-separated statements.
    package let sql: String
    /// Runs after `sql` (e.g. a backfill in batches), or nil.
    package let dataStep: DataStep?

    /// Creates a migration.
    /// - Parameters:
    ///   - id: unique within a ``Migrator``.
    ///   - sql: DDL and data changes, run in one transaction.
    ///   - dataStep: work SQL alone cannot do (hashing), run after `sql` in that transaction.
    package init(id: String, sql: String, dataStep: DataStep? = nil) {
        self.id = id
        self.sql = sql
        self.dataStep = dataStep
    }

    /// Migrations are equal when their id and SQL are (a data step cannot be compared).
    package static func == (lhs: Migration, rhs: Migration) -> Bool {
        lhs.id == rhs.id && lhs.sql == rhs.sql && (lhs.dataStep == nil) == (rhs.dataStep == nil)
    }
}
