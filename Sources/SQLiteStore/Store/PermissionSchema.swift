import AuditKeys

/// The schema of the permission store, as an append-only list of migrations (STYLE 12).
///
/// Times are integer milliseconds since 1970 (UTC); enumerations are their raw string values;
/// short lists of identifiers (levels, choices, purpose keys) are comma-joined, which is safe
/// because none of their alphabets has a comma. Tables are `STRICT`
/// (https://www.sqlite.org/stricttables.html) and keyed tables `WITHOUT ROWID`
/// (https://www.sqlite.org/withoutrowid.html) so a lookup by key is one b-tree descent.
enum PermissionSchema {
    /// Every migration, in order. Never edit a released one; append.
    /// - Parameter keyring: the store's audit keys, for the migration that seals personal
    ///   fields; nil only to list or check migrations, never to apply them.
    static func migrator(keyring: AuditKeyring?) -> Migrator {
        Migrator([
            Migration(id: "1-permission-store", sql: version1),
            Migration(id: "2-api-keys", sql: version2),
            auditChain,
            Migration(id: "4-consent-sessions", sql: version4),
            Migration(id: "5-localized-purpose-strings", sql: version5),
            Migration(id: "6-expiring-grants", sql: version6),
            Migration(id: "7-location-button", sql: version7),
            sealedAudit(keyring: keyring),
            Migration(id: "9-fewer-listing-indexes", sql: version9),
            Migration(id: "10-location-alerts", sql: version10),
            Migration(id: "11-version-floor", sql: version11),
            Migration(id: "12-purpose-keys", sql: version12),
            Migration(id: "13-ended-retention", sql: version13),
            Migration(id: "14-session-extension", sql: version14),
            Migration(id: "15-development-language", sql: version15),
        ])
    }

    /// The migrations, to list or check them (applying one that seals needs the keyring).
    static let migrations = migrator(keyring: nil)

    private static let version1 = """
        CREATE TABLE authorizations (
            user TEXT NOT NULL,
            app TEXT NOT NULL,
            service TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('notDetermined', 'denied', 'authorized')),
            level TEXT,
            provisional INTEGER NOT NULL,
            once INTEGER NOT NULL,
            expires_at INTEGER,
            reason TEXT NOT NULL,
            purpose TEXT,
            declined_levels TEXT NOT NULL,
            updated_at INTEGER,
            version INTEGER NOT NULL,
            PRIMARY KEY (user, app, service)
        ) STRICT, WITHOUT ROWID;
        -- Listings are ordered by (user, app, service); one index per supported filter.
        CREATE INDEX authorizations_by_app ON authorizations (app, user, service);
        CREATE INDEX authorizations_by_app_service ON authorizations (app, service, user);
        CREATE INDEX authorizations_by_app_service_status ON authorizations (app, service, status, user);
        CREATE INDEX authorizations_by_service ON authorizations (service, user, app);
        CREATE INDEX authorizations_once_due ON authorizations (expires_at, user, app, service) WHERE once = 1;
        -- SPEC §3: version never goes back for a (user, app, service).
        CREATE TRIGGER authorizations_version_grows BEFORE UPDATE ON authorizations
            WHEN NEW.version <= OLD.version
            BEGIN SELECT RAISE(ABORT, 'authorization version must grow'); END;

        CREATE TABLE apps (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE app_purpose_strings (
            app TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            purpose TEXT NOT NULL,
            PRIMARY KEY (app, key)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE services (
            id TEXT PRIMARY KEY NOT NULL,
            builtin INTEGER NOT NULL,
            specials TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE service_levels (
            service TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            level TEXT NOT NULL,
            purpose_keys TEXT NOT NULL,
            PRIMARY KEY (service, rank)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE policies (
            id TEXT PRIMARY KEY NOT NULL,
            service TEXT NOT NULL,
            app TEXT,
            user TEXT,
            effect TEXT NOT NULL CHECK (effect IN ('restrict', 'allow')),
            level TEXT,
            updated_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX policies_by_service ON policies (service, app, user);

        CREATE TABLE user_settings (
            user TEXT PRIMARY KEY NOT NULL,
            location_services_enabled INTEGER NOT NULL,
            updated_at INTEGER
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE prompts (
            id TEXT PRIMARY KEY NOT NULL,
            user TEXT NOT NULL,
            app TEXT NOT NULL,
            service TEXT NOT NULL,
            kind TEXT NOT NULL,
            requested_level TEXT NOT NULL,
            options TEXT NOT NULL,
            purpose TEXT NOT NULL,
            purpose_key TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'answered', 'expired', 'cancelled')),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            ended_at INTEGER,
            choice TEXT
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX prompts_by_user ON prompts (user, id);
        CREATE INDEX prompts_pending_by_user ON prompts (user, id) WHERE state = 'pending';
        -- At most one pending prompt per authorization.
        CREATE UNIQUE INDEX prompts_pending_by_authorization ON prompts (user, app, service) WHERE state = 'pending';
        CREATE INDEX prompts_pending_due ON prompts (expires_at, id) WHERE state = 'pending';
        CREATE INDEX prompts_by_app_service ON prompts (app, service, id);

        CREATE TABLE audit (
            seq INTEGER PRIMARY KEY NOT NULL,
            at INTEGER NOT NULL,
            actor_key TEXT,
            actor_role TEXT NOT NULL,
            action TEXT NOT NULL,
            user TEXT,
            app TEXT,
            service TEXT,
            from_status TEXT,
            from_level TEXT,
            from_provisional INTEGER,
            from_once INTEGER,
            to_status TEXT,
            to_level TEXT,
            to_provisional INTEGER,
            to_once INTEGER,
            reason TEXT,
            purpose TEXT,
            prompt_id TEXT,
            request_id TEXT,
            detail TEXT
        ) STRICT;
        CREATE INDEX audit_by_user ON audit (user, seq) WHERE user IS NOT NULL;
        CREATE INDEX audit_by_app ON audit (app, seq) WHERE app IS NOT NULL;
        CREATE INDEX audit_by_service ON audit (service, seq) WHERE service IS NOT NULL;
        CREATE INDEX audit_by_action ON audit (action, seq);
        -- SPEC §5: seq is gap-free and increasing; entries are never updated or deleted.
        CREATE TRIGGER audit_seq_gap_free BEFORE INSERT ON audit
            WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM audit)
            BEGIN SELECT RAISE(ABORT, 'audit seq must be the last seq + 1'); END;
        CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit entries are never updated'); END;
        CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit entries are never deleted'); END;
        """
}
