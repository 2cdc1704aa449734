extension PermissionSchema {
    /// Migration 10: location alerts (SPEC §11). An app's registered `version` (a change starts
    /// the alerts' intervals over), a location alert's count of background uses on its prompt,
    /// and one schedule per (user, app) with an Always grant: the uses per hour of the last 3
    /// days (`hour:count,…`, no places), the uses since the last alert, and when the next alert
    /// is due, which the scheduler finds through `location_alerts_due`.
    static let version10 = """
        ALTER TABLE apps ADD COLUMN version TEXT;
        ALTER TABLE prompts ADD COLUMN background_uses INTEGER CHECK (background_uses >= 0);
        CREATE TABLE location_alerts (
            user TEXT NOT NULL,
            app TEXT NOT NULL,
            started_at INTEGER NOT NULL,
            alerts_shown INTEGER NOT NULL CHECK (alerts_shown >= 0),
            last_alert_at INTEGER,
            uses_since_alert INTEGER NOT NULL CHECK (uses_since_alert >= 0),
            recent_uses TEXT NOT NULL,
            due_at INTEGER,
            app_version TEXT,
            PRIMARY KEY (user, app)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX location_alerts_by_app ON location_alerts (app, user);
        CREATE INDEX location_alerts_due ON location_alerts (due_at, user, app) WHERE due_at IS NOT NULL;
        """
}
