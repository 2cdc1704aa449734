extension PermissionSchema {
    /// Migration 4: consent sessions (SPEC §10). Only SHA-256 hashes of the link's token, the
    /// cookie's secret and the CSRF token are stored, each unique so a lookup by one is an
    /// index seek. The rows are ephemeral: `copy` does not carry them.
    static let version4 = """
        CREATE TABLE consent_sessions (
            id TEXT PRIMARY KEY NOT NULL,
            user TEXT NOT NULL,
            token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
            secret_hash BLOB UNIQUE CHECK (secret_hash IS NULL OR length(secret_hash) = 32),
            csrf_hash BLOB CHECK (csrf_hash IS NULL OR length(csrf_hash) = 32),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            exchanged_at INTEGER,
            ended_at INTEGER,
            CHECK ((secret_hash IS NULL) = (exchanged_at IS NULL)),
            CHECK ((csrf_hash IS NULL) = (exchanged_at IS NULL))
        ) STRICT, WITHOUT ROWID;
        -- A session's user, token and lifetime never change.
        CREATE TRIGGER consent_sessions_fixed BEFORE UPDATE OF user, token_hash, created_at, expires_at
            ON consent_sessions
            WHEN NEW.user IS NOT OLD.user OR NEW.token_hash IS NOT OLD.token_hash
                OR NEW.created_at IS NOT OLD.created_at OR NEW.expires_at IS NOT OLD.expires_at
            BEGIN SELECT RAISE(ABORT, 'a consent session''s user, token and lifetime never change'); END;
        """
}
