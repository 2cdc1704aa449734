extension PostgresSchema {
    /// Migration 4: expiring grants (SPEC §11), as SQLite's `6-expiring-grants`: the
    /// sweeper's index of due grants covers every row with an `expires_at` (Allow Once and
    /// expiring grants) instead of the once grants.
    static let version4 = """
        DROP INDEX authorizations_once_due;
        CREATE INDEX authorizations_due ON authorizations (expires_at, user_id, app, service)
            WHERE expires_at IS NOT NULL;
        """
}
