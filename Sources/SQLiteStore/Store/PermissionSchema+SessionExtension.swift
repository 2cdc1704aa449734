extension PermissionSchema {
    /// Migration 14: a consent session's end may move later ("Stay Signed In",
    /// ``PermissionService/extendConsentSession(id:actor:requestId:)``), never earlier; its
    /// user, token and creation still never change. The trigger of migration 4 refused any
    /// change of `expires_at`.
    static let version14 = """
        DROP TRIGGER consent_sessions_fixed;
        CREATE TRIGGER consent_sessions_fixed BEFORE UPDATE OF user, token_hash, created_at, expires_at
            ON consent_sessions
            WHEN NEW.user IS NOT OLD.user OR NEW.token_hash IS NOT OLD.token_hash
                OR NEW.created_at IS NOT OLD.created_at OR NEW.expires_at < OLD.expires_at
            BEGIN SELECT RAISE(ABORT, 'a consent session''s user, token and creation never change, and its end only moves later'); END;
        """
}
