extension PostgresSchema {
    /// Migration 9: the purpose key of a record's purpose string, as SQLite's `12-purpose-keys`.
    static let version9 = """
        ALTER TABLE authorizations ADD COLUMN purpose_key text;
        """
}
