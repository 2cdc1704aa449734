extension PostgresSchema {
    /// Migration 5: the location button (SPEC §11), as SQLite's `7-location-button`: whether
    /// the user confirmed the app's location button, a column of the (user, app, location)
    /// record.
    static let version5 = """
        ALTER TABLE authorizations ADD COLUMN button_confirmed boolean NOT NULL DEFAULT false;
        """
}
