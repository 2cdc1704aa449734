extension PermissionSchema {
    /// Migration 5: localized purpose strings (SPEC §11). An app's translations, per language
    /// tag (canonical case) and Info.plist key; the user's language in their settings; the
    /// language of the purpose string a prompt showed and an authorization was decided under
    /// (NULL: the base string).
    static let version5 = """
        CREATE TABLE app_localized_purpose_strings (
            app TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
            language TEXT NOT NULL,
            key TEXT NOT NULL,
            purpose TEXT NOT NULL,
            PRIMARY KEY (app, language, key)
        ) STRICT, WITHOUT ROWID;
        ALTER TABLE user_settings ADD COLUMN locale TEXT;
        ALTER TABLE prompts ADD COLUMN purpose_language TEXT;
        ALTER TABLE authorizations ADD COLUMN purpose_language TEXT;
        """
}
