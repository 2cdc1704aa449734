extension PostgresSchema {
    /// Migration 8: the version floor, as SQLite's `11-version-floor`: one row holding at least
    /// the highest `version` an erased record held, which a record not stored counts as its own,
    /// so that a (user, app, service)'s version never goes back after its user's erasure. It
    /// starts at the log's last seq when the log has a `user.erased` entry (no record's version
    /// was ever above it: each version step is one audit entry), at 0 otherwise.
    static let version8 = """
        CREATE TABLE version_floor (
            id integer PRIMARY KEY CHECK (id = 1),
            version bigint NOT NULL CHECK (version >= 0)
        );
        INSERT INTO version_floor (id, version) VALUES (1,
            CASE WHEN EXISTS (SELECT 1 FROM audit WHERE action = 'user.erased')
                THEN (SELECT coalesce(max(seq), 0) FROM audit) ELSE 0 END);
        """
}
