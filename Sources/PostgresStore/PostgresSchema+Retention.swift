extension PostgresSchema {
    /// Migration 10: the indexes of the retention sweep, as SQLite's `13-ended-retention`.
    static let version10 = """
        CREATE INDEX prompts_ended ON prompts (ended_at, id) WHERE state <> 'pending';
        CREATE INDEX consent_sessions_by_expiry ON consent_sessions (expires_at, id);
        """
}
