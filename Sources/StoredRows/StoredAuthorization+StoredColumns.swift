package import PermissionDomain

extension StoredAuthorization {
    /// What both stores' upsert of a record sets when the record exists (`ON CONFLICT (user, app,
    /// service) DO UPDATE SET …`): every column but the key, in one place, so that a column added
    /// to the table cannot be left out of one store's upsert.
    package static let upsertAssignments = """
        status = excluded.status, level = excluded.level, provisional = excluded.provisional,
        once = excluded.once, expires_at = excluded.expires_at, reason = excluded.reason,
        purpose = excluded.purpose, declined_levels = excluded.declined_levels,
        updated_at = excluded.updated_at, version = excluded.version,
        purpose_language = excluded.purpose_language, button_confirmed = excluded.button_confirmed,
        purpose_hash = excluded.purpose_hash, purpose_key = excluded.purpose_key
        """
}
