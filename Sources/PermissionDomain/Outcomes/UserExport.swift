public import Foundation

/// Everything the service keeps about one user (GDPR Art. 15 and 20), read from one snapshot
/// that stays open until ``close()``: the authorizations with their effective view, the
/// prompts, the settings, the location alert schedules (background uses per hour, no places),
/// and every audit entry about the user both readable and as stored (hashed), with the chain
/// head of the snapshot. A user exists only through their records: one the service never saw
/// has an export with no records and the default settings.
///
/// The small parts (the head, the settings) are read when the export is opened
/// (``PermissionService/export(user:)``), after its rows were counted; each listing is read a
/// page at a time (``PermissionService/Configuration/exportPageSize`` rows) when it is walked
/// (``records(_:)``, ``prompts(_:)``, ``locationAlerts(_:)``, ``audit(_:)``), each page handed
/// to the caller before the next is read, so an export holds at most one page of rows however
/// large it is. The listings may be walked in any order, and again. The snapshot holds a
/// database connection until ``close()`` (or until the export is released); used by one
/// thread at a time.
public final class UserExport: Sendable {
    /// One authorization record: the stored choice, what it means now, and the app's name.
    public struct Record: Sendable {
        public let stored: StoredAuthorization
        public let effective: Authorization
        /// The app's registered name, nil for an app never registered.
        public let appName: String?
    }

    /// One audit entry about the user: readable, and as stored for the hash chain.
    public struct AuditItem: Sendable {
        public let entry: AuditEntry
        /// The hashed values as stored (``AuditChain/storedValues(of:)``) and the entry's hash.
        public let record: AuditRecord
    }

    public let user: UserID
    /// The time the snapshot was read at (the effective views are computed at it).
    public let exportedAt: Date
    /// The chain head of the snapshot: its last seq (0 for an empty log) and that entry's hash
    /// (``AuditChain/genesis`` for an empty log). Every row the export holds is as of this
    /// revision.
    public let headSeq: Int64
    public let headHash: String
    /// The defaults (Location Services on) for a user who never changed them.
    public let settings: UserSettings

    /// The snapshot every listing is read from.
    let snapshot: any PermissionSnapshot
    /// The service whose rules compute the effective views.
    let service: PermissionService

    init(
        user: UserID, exportedAt: Date, headSeq: Int64, headHash: String, settings: UserSettings,
        snapshot: any PermissionSnapshot, service: PermissionService
    ) {
        self.user = user
        self.exportedAt = exportedAt
        self.headSeq = headSeq
        self.headHash = headHash
        self.settings = settings
        self.snapshot = snapshot
        self.service = service
    }

    /// The rows read per page.
    var pageSize: Int { service.configuration.exportPageSize }

    /// Ends the snapshot and gives its connection back; walking a listing afterwards throws.
    /// A second call does nothing.
    public func close() {
        snapshot.close()
    }
}

/// An export that would hold more records than `--max-export-records`: refused, not built.
public struct ExportTooLarge: Error, Sendable, Equatable {
    /// The limit (``PermissionService/Configuration/maxExportRecords``).
    public let limit: Int

    public init(limit: Int) {
        self.limit = limit
    }
}
