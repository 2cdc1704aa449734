extension PostgresSchema {
    /// Migration 3: localized purpose strings (SPEC §11), as SQLite's
    /// `5-localized-purpose-strings`: an app's translations per language tag and Info.plist
    /// key, the user's language, and the language of the purpose string a prompt showed and an
    /// authorization was decided under (NULL: the base string).
    static let version3 = """
        CREATE TABLE app_localized_purpose_strings (
            app text COLLATE "C" NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
            language text COLLATE "C" NOT NULL,
            key text COLLATE "C" NOT NULL,
            purpose text NOT NULL,
            PRIMARY KEY (app, language, key)
        );
        ALTER TABLE user_settings ADD COLUMN locale text;
        ALTER TABLE prompts ADD COLUMN purpose_language text;
        ALTER TABLE authorizations ADD COLUMN purpose_language text;
        """
}
