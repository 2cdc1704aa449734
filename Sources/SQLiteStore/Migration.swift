/// One schema change: an id that never changes once released, and the SQL that makes it.
package struct Migration: Sendable, Equatable {
    /// The id recorded in `schema_migrations` once applied.
    package let id: String
    /// One or more `;`-separated statements.
    package let sql: String

    /// Creates a migration.
    /// - Parameters:
    ///   - id: unique within a ``Migrator``.
    ///   - sql: DDL and data changes, run in one transaction.
    package init(id: String, sql: String) {
        self.id = id
        self.sql = sql
    }
}
