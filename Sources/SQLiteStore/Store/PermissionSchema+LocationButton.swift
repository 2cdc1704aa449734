extension PermissionSchema {
    /// Migration 7: the location button (SPEC §11). Whether the user confirmed the app's
    /// location button is a fact of the (user, app, location) record, so it is read and written
    /// with it, cleared by the same reset and reinstall, and audited by the same entries.
    static let version7 = """
        ALTER TABLE authorizations ADD COLUMN button_confirmed INTEGER NOT NULL DEFAULT 0
            CHECK (button_confirmed IN (0, 1));
        """
}
