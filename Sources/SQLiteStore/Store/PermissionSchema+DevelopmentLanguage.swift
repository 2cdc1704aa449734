extension PermissionSchema {
    /// Migration 15: an app's development language, the language of its base purpose strings
    /// (``App/developmentLanguage``); null when not given.
    static let version15 = """
        ALTER TABLE apps ADD COLUMN development_language TEXT;
        """
}
