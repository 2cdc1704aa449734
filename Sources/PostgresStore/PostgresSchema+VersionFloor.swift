extension PostgresSchema {
    /// Migration 8: the version floor, as SQLite's `11-version-floor`: one row holding at least
    /// the highest `version` an erased record held, which a record not stored counts as its own,
    /// so that a (user, app, service)'s version never goes back after its user's erasure. It
    /// starts at the log's last seq when the log has a `user.erased` entry (no record's version
    /// was ever above it: each version step is one audit entry), at 0 otherwise, read under the
    /// chain head's lock so that no erasure commits meanwhile.
    ///
    /// Two triggers keep it for replicas of the previous version too, which keep serving during
    /// a rolling update and know nothing of it: a delete of records raises the floor to their
    /// highest version, and a record inserted at or below the floor (a previous-version replica
    /// writes a new record at version 1) is stored at the floor + 1 instead. That replica's
    /// answer then names version 1 while the record holds the floor + 1, so its entity tag does
    /// not match and a conditional write with it is refused (`412`) until read again; versions
    /// never go back.
    static let version8 = """
        SELECT 1 FROM audit_head WHERE id = 1 FOR UPDATE;
        CREATE TABLE version_floor (
            id integer PRIMARY KEY CHECK (id = 1),
            version bigint NOT NULL CHECK (version >= 0)
        );
        INSERT INTO version_floor (id, version) VALUES (1,
            CASE WHEN EXISTS (SELECT 1 FROM audit WHERE action = 'user.erased')
                THEN (SELECT coalesce(max(seq), 0) FROM audit) ELSE 0 END);

        CREATE FUNCTION version_floor_raised() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE version_floor SET version = greatest(version, (SELECT coalesce(max(version), 0) FROM deleted))
            WHERE id = 1;
            RETURN NULL;
        END $$;
        CREATE TRIGGER version_floor_raised AFTER DELETE ON authorizations
            REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION version_floor_raised();

        CREATE FUNCTION authorizations_above_version_floor() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            lowest bigint;
        BEGIN
            SELECT version INTO lowest FROM version_floor WHERE id = 1;
            IF lowest > 0 AND NEW.version <= lowest AND NOT EXISTS (
                SELECT 1 FROM authorizations WHERE user_id = NEW.user_id AND app = NEW.app AND service = NEW.service
            ) THEN
                NEW.version := lowest + 1;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER authorizations_above_version_floor BEFORE INSERT ON authorizations
            FOR EACH ROW EXECUTE FUNCTION authorizations_above_version_floor();
        """
}
