extension PermissionSchema {
    /// Migration 9: one index fewer on `authorizations`. Every secondary index is another
    /// b-tree a write inserts into, and a new record lands on its own leaf page in each one
    /// (on its app's run of the index, or its user's), which the commit writes to the WAL and
    /// syncs: with `authorizations_by_app_service` a durable write wrote about 48 KB, without it
    /// about 38 KB (`bench/RESULTS.md`). A listing filtered by app and service now reads
    /// `authorizations_by_app` (app, user, service) in (user, app, service) order and skips the
    /// app's other services there, in the index, without a sort; `StoreSession`'s listing
    /// query plans are checked by `ListingQueryPlanTests`.
    static let version9 = """
        DROP INDEX authorizations_by_app_service;
        """
}
