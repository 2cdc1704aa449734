extension PermissionSchema {
    /// Migration 12: the purpose key a record's purpose string was shown under (the prompt's
    /// `purposeKey`), so that re-consent compares the text with that key's text now (SPEC §11).
    /// Records from before have none, and are compared with every key of their service.
    static let version12 = """
        ALTER TABLE authorizations ADD COLUMN purpose_key TEXT;
        """
}
