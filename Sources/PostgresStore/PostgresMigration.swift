/// One step of the PostgreSQL schema: an id recorded in `schema_migrations` once applied, and
/// the SQL that applies it (run in one transaction with that record).
struct PostgresMigration: Sendable {
    /// Unique and never reused; recorded in `schema_migrations`.
    let id: String
    /// One or more `;`-separated statements.
    let sql: String
    /// Work SQL alone cannot do (sealing, hashing), run after `sql` in the same transaction.
    var dataStep: (@Sendable (PostgresConnection) throws -> Void)? = nil
}
