import AuditKeys

/// The schema of the PostgreSQL store, as an append-only list of migrations (STYLE 12): the
/// tables of SQLite's `PermissionSchema` after its migrations, with the same values.
///
/// Times are `bigint` milliseconds since 1970 (UTC), so values round-trip exactly as on SQLite;
/// enumerations are their raw strings; short lists are comma-joined text. Keys and every column
/// a listing orders by are `COLLATE "C"` (byte order, as SQLite's BINARY), whatever the
/// database's default collation. The audit `detail` is `text`, never `jsonb` (which would
/// re-order keys and change the chain hashes). `user` is a reserved word in PostgreSQL, so the
/// column is `user_id`.
///
/// `audit_head` is the chain head: one row (id 1) holding the last seq and hash. Every writing
/// transaction locks it first (`FOR UPDATE`), so writes are serialized across connections and
/// replicas and `seq` is gap-free without a sequence (a sequence leaves gaps on rollback).
enum PostgresSchema {
    /// Every migration, in order. Never edit a released one; append.
    /// - Parameter keyring: the store's audit keys, for the migration that seals personal
    ///   fields; nil only to list or check migrations, never to apply them.
    static func migrator(keyring: AuditKeyring?) -> PostgresMigrator {
        PostgresMigrator([
            PostgresMigration(id: "1-permission-store", sql: version1),
            PostgresMigration(id: "2-consent-sessions", sql: version2),
            PostgresMigration(id: "3-localized-purpose-strings", sql: version3),
            PostgresMigration(id: "4-expiring-grants", sql: version4),
            PostgresMigration(id: "5-location-button", sql: version5),
            sealedAudit(keyring: keyring),
            PostgresMigration(id: "7-location-alerts", sql: version7),
            PostgresMigration(id: "8-version-floor", sql: version8),
            PostgresMigration(id: "9-purpose-keys", sql: version9),
            PostgresMigration(id: "10-ended-retention", sql: version10),
            PostgresMigration(id: "11-session-extension", sql: version11),
            PostgresMigration(id: "12-development-language", sql: version12),
        ])
    }

    /// The migrations, to list or check them (applying one that seals needs the keyring).
    static let migrations = migrator(keyring: nil)

    /// Consent sessions (SPEC §10), as SQLite's `4-consent-sessions`: only SHA-256 hashes of
    /// the link's token, the cookie's secret and the CSRF token, each unique. Ephemeral: `copy`
    /// does not carry them.
    private static let version2 = """
        CREATE TABLE consent_sessions (
            id text COLLATE "C" PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL,
            token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
            secret_hash bytea UNIQUE CHECK (length(secret_hash) = 32),
            csrf_hash bytea CHECK (length(csrf_hash) = 32),
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            exchanged_at bigint,
            ended_at bigint,
            CHECK ((secret_hash IS NULL) = (exchanged_at IS NULL)),
            CHECK ((csrf_hash IS NULL) = (exchanged_at IS NULL))
        );
        CREATE FUNCTION consent_sessions_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.user_id IS DISTINCT FROM OLD.user_id OR NEW.token_hash IS DISTINCT FROM OLD.token_hash
                OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.expires_at IS DISTINCT FROM OLD.expires_at THEN
                RAISE EXCEPTION 'a consent session''s user, token and lifetime never change';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER consent_sessions_fixed BEFORE UPDATE ON consent_sessions
            FOR EACH ROW EXECUTE FUNCTION consent_sessions_fixed();
        """

    private static let version1 = """
        CREATE TABLE authorizations (
            user_id text COLLATE "C" NOT NULL,
            app text COLLATE "C" NOT NULL,
            service text COLLATE "C" NOT NULL,
            status text NOT NULL CHECK (status IN ('notDetermined', 'denied', 'authorized')),
            level text,
            provisional boolean NOT NULL,
            once boolean NOT NULL,
            expires_at bigint,
            reason text NOT NULL,
            purpose text,
            purpose_hash text,
            declined_levels text NOT NULL,
            updated_at bigint,
            version bigint NOT NULL,
            PRIMARY KEY (user_id, app, service)
        );
        CREATE INDEX authorizations_by_app ON authorizations (app, user_id, service);
        CREATE INDEX authorizations_by_app_service ON authorizations (app, service, user_id);
        CREATE INDEX authorizations_by_app_service_status ON authorizations (app, service, status, user_id);
        CREATE INDEX authorizations_by_service ON authorizations (service, user_id, app);
        CREATE INDEX authorizations_once_due ON authorizations (expires_at, user_id, app, service) WHERE once;

        CREATE FUNCTION authorizations_version_grows() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.version <= OLD.version THEN RAISE EXCEPTION 'authorization version must grow'; END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER authorizations_version_grows BEFORE UPDATE ON authorizations
            FOR EACH ROW EXECUTE FUNCTION authorizations_version_grows();

        CREATE TABLE apps (
            id text COLLATE "C" PRIMARY KEY,
            name text NOT NULL,
            updated_at bigint NOT NULL
        );
        CREATE TABLE app_purpose_strings (
            app text COLLATE "C" NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
            key text COLLATE "C" NOT NULL,
            purpose text NOT NULL,
            PRIMARY KEY (app, key)
        );

        CREATE TABLE services (
            id text COLLATE "C" PRIMARY KEY,
            builtin boolean NOT NULL,
            specials text NOT NULL
        );
        CREATE TABLE service_levels (
            service text COLLATE "C" NOT NULL REFERENCES services (id) ON DELETE CASCADE,
            rank integer NOT NULL,
            level text NOT NULL,
            purpose_keys text NOT NULL,
            PRIMARY KEY (service, rank)
        );

        CREATE TABLE policies (
            id text COLLATE "C" PRIMARY KEY,
            service text COLLATE "C" NOT NULL,
            app text COLLATE "C",
            user_id text COLLATE "C",
            effect text NOT NULL CHECK (effect IN ('restrict', 'allow')),
            level text,
            updated_at bigint NOT NULL
        );
        CREATE INDEX policies_by_service ON policies (service, app, user_id);

        CREATE TABLE user_settings (
            user_id text COLLATE "C" PRIMARY KEY,
            location_services_enabled boolean NOT NULL,
            updated_at bigint
        );

        CREATE TABLE prompts (
            id text COLLATE "C" PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL,
            app text COLLATE "C" NOT NULL,
            service text COLLATE "C" NOT NULL,
            kind text NOT NULL,
            requested_level text NOT NULL,
            options text NOT NULL,
            purpose text NOT NULL,
            purpose_key text NOT NULL,
            state text NOT NULL CHECK (state IN ('pending', 'answered', 'expired', 'cancelled')),
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            ended_at bigint,
            choice text
        );
        CREATE INDEX prompts_by_user ON prompts (user_id, id);
        CREATE INDEX prompts_pending_by_user ON prompts (user_id, id) WHERE state = 'pending';
        CREATE UNIQUE INDEX prompts_pending_by_authorization ON prompts (user_id, app, service) WHERE state = 'pending';
        CREATE INDEX prompts_pending_due ON prompts (expires_at, id) WHERE state = 'pending';
        CREATE INDEX prompts_by_app_service ON prompts (app, service, id);

        CREATE TABLE audit (
            seq bigint PRIMARY KEY,
            at bigint NOT NULL,
            actor_key text,
            actor_role text NOT NULL,
            action text COLLATE "C" NOT NULL,
            user_id text COLLATE "C",
            app text COLLATE "C",
            service text COLLATE "C",
            from_status text,
            from_level text,
            from_provisional bigint,
            from_once bigint,
            to_status text,
            to_level text,
            to_provisional bigint,
            to_once bigint,
            reason text,
            purpose text,
            prompt_id text,
            request_id text,
            detail text,
            purpose_hash text,
            prev_hash text,
            hash text
        );
        CREATE INDEX audit_by_user ON audit (user_id, seq) WHERE user_id IS NOT NULL;
        CREATE INDEX audit_by_app ON audit (app, seq) WHERE app IS NOT NULL;
        CREATE INDEX audit_by_service ON audit (service, seq) WHERE service IS NOT NULL;
        CREATE INDEX audit_by_action ON audit (action, seq);

        -- The chain head: the last seq and hash, locked by every writing transaction.
        CREATE TABLE audit_head (
            id integer PRIMARY KEY CHECK (id = 1),
            seq bigint NOT NULL,
            hash text NOT NULL
        );
        INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '\(String(repeating: "0", count: 64))');

        -- SPEC §5: seq is gap-free and increasing; entries are never updated or deleted.
        CREATE FUNCTION audit_seq_gap_free() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.seq IS DISTINCT FROM (SELECT coalesce(max(seq), 0) + 1 FROM audit) THEN
                RAISE EXCEPTION 'audit seq must be the last seq + 1';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER audit_seq_gap_free BEFORE INSERT ON audit
            FOR EACH ROW EXECUTE FUNCTION audit_seq_gap_free();
        CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'audit entries are never updated or deleted';
        END $$;
        CREATE TRIGGER audit_never_updated BEFORE UPDATE OR DELETE ON audit
            FOR EACH ROW EXECUTE FUNCTION audit_append_only();
        CREATE TRIGGER audit_never_truncated BEFORE TRUNCATE ON audit
            FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();

        CREATE TABLE api_keys (
            id text COLLATE "C" PRIMARY KEY,
            role text NOT NULL CHECK (role IN ('admin', 'consent', 'app', 'auditor')),
            app text COLLATE "C",
            name text NOT NULL,
            secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
            created_at bigint NOT NULL,
            revoked_at bigint,
            CHECK ((role = 'app') = (app IS NOT NULL))
        );
        CREATE FUNCTION api_keys_hash_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.secret_hash IS DISTINCT FROM OLD.secret_hash THEN
                RAISE EXCEPTION 'an API key secret hash never changes';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER api_keys_hash_fixed BEFORE UPDATE OF secret_hash ON api_keys
            FOR EACH ROW EXECUTE FUNCTION api_keys_hash_fixed();
        """
}
