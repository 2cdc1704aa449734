extension PostgresSchema {
    /// Migration 11: a consent session's end may move later, never earlier, as SQLite's
    /// `14-session-extension`; its user, token and creation still never change.
    static let version11 = """
        CREATE OR REPLACE FUNCTION consent_sessions_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.user_id IS DISTINCT FROM OLD.user_id OR NEW.token_hash IS DISTINCT FROM OLD.token_hash
                OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.expires_at < OLD.expires_at THEN
                RAISE EXCEPTION 'a consent session''s user, token and creation never change, and its end only moves later';
            END IF;
            RETURN NEW;
        END $$;
        """
}
