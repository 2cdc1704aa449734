extension PermissionSchema {
    /// Migration 6: expiring grants (SPEC §11). Any authorized grant may now have an end, not
    /// only an Allow Once grant, so the sweeper's index of due grants covers every row with an
    /// `expires_at` instead of the once grants (https://www.sqlite.org/partialindex.html).
    static let version6 = """
        DROP INDEX authorizations_once_due;
        CREATE INDEX authorizations_due ON authorizations (expires_at, user, app, service)
            WHERE expires_at IS NOT NULL;
        """
}
