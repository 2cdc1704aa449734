extension PostgresSchema {
    /// Migration 7: location alerts (SPEC §11), as SQLite's `10-location-alerts`: an app's
    /// registered `version`, a location alert's count of background uses, and one schedule
    /// per (user, app) with an Always grant, found by the scheduler through
    /// `location_alerts_due`.
    static let version7 = """
        ALTER TABLE apps ADD COLUMN version text;
        ALTER TABLE prompts ADD COLUMN background_uses bigint CHECK (background_uses >= 0);
        CREATE TABLE location_alerts (
            user_id text COLLATE "C" NOT NULL,
            app text COLLATE "C" NOT NULL,
            started_at bigint NOT NULL,
            alerts_shown bigint NOT NULL CHECK (alerts_shown >= 0),
            last_alert_at bigint,
            uses_since_alert bigint NOT NULL CHECK (uses_since_alert >= 0),
            recent_uses text NOT NULL,
            due_at bigint,
            app_version text,
            PRIMARY KEY (user_id, app)
        );
        CREATE INDEX location_alerts_by_app ON location_alerts (app, user_id);
        CREATE INDEX location_alerts_due ON location_alerts (due_at, user_id, app) WHERE due_at IS NOT NULL;
        """
}
