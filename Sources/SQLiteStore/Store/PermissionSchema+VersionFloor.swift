extension PermissionSchema {
    /// Migration 11: the version floor (``StoreSession/versionFloor()``), one row. An erasure
    /// deletes a user's records and keeps nothing that names them, so what keeps a
    /// (user, app, service)'s `version` from going back when it is written again is a number
    /// for the whole store: at least the highest version an erased record held, which a record
    /// not stored counts as its own.
    ///
    /// A database that had erased users before this migration lost their versions with them.
    /// Every version step of a record is one audit entry (``PermissionService``'s `commit`), so
    /// no record ever had a version above the log's last seq: the floor starts there when the
    /// log has a `user.erased` entry, and at 0 when it has none.
    static let version11 = """
        CREATE TABLE version_floor (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            version INTEGER NOT NULL CHECK (version >= 0)
        ) STRICT;
        INSERT INTO version_floor (id, version) VALUES (1,
            CASE WHEN EXISTS (SELECT 1 FROM audit WHERE action = 'user.erased')
                THEN (SELECT coalesce(max(seq), 0) FROM audit) ELSE 0 END);
        """
}
