extension PostgresSchema {
    /// Migration 12: an app's development language, as SQLite's `15-development-language`.
    static let version12 = """
        ALTER TABLE apps ADD COLUMN development_language text;
        """
}
