public import Foundation

/// Everything the service keeps about one user (GDPR Art. 15 and 20), read in one consistent
/// snapshot: the authorizations with their effective view, the prompts, the settings, the
/// location alert schedules (background uses per hour, no places), and every
/// audit entry about the user both readable and as stored (hashed), with the chain head of the
/// snapshot. A user exists only through their records: one the service never saw has an export
/// with no records and the default settings.
public struct UserExport: Sendable {
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
    /// (``AuditChain/genesis`` for an empty log). Every record below is as of this revision.
    public let headSeq: Int64
    public let headHash: String
    /// Ordered by (app, service).
    public let records: [Record]
    /// In their effective state, ordered by id (creation order).
    public let prompts: [Prompt]
    /// The defaults (Location Services on) for a user who never changed them.
    public let settings: UserSettings
    /// The location alert schedules of the user's apps with Always, ordered by app.
    public let locationAlerts: [LocationAlertSchedule]
    /// In seq order, none after ``headSeq``.
    public let audit: [AuditItem]
}

/// An export that would hold more records than `--max-export-records`: refused, not built.
public struct ExportTooLarge: Error, Sendable, Equatable {
    /// The limit (``PermissionService/Configuration/maxExportRecords``).
    public let limit: Int

    public init(limit: Int) {
        self.limit = limit
    }
}
