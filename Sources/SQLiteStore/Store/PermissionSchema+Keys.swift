extension PermissionSchema {
    /// Migration 2: API keys (SPEC §6). Only the SHA-256 of each secret is stored; revoked
    /// keys stay (revoked_at set) so that audit entries keep naming a known key.
    static let version2 = """
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('admin', 'consent', 'app', 'auditor')),
            app TEXT,
            name TEXT NOT NULL,
            secret_hash BLOB NOT NULL CHECK (length(secret_hash) = 32),
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            CHECK ((role = 'app') = (app IS NOT NULL))
        ) STRICT, WITHOUT ROWID;
        -- A key's secret hash never changes.
        CREATE TRIGGER api_keys_hash_fixed BEFORE UPDATE OF secret_hash ON api_keys
            WHEN NEW.secret_hash IS NOT OLD.secret_hash
            BEGIN SELECT RAISE(ABORT, 'an API key secret hash never changes'); END;
        """
}
