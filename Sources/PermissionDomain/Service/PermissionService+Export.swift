import Foundation

extension PermissionService {
    /// Opens everything kept about `user` (GDPR Art. 15 and 20) on one read snapshot, so that
    /// the records, the audit entries and the chain head agree: the head is read first, then
    /// the rows of the four listings are counted (on their indexes, reading none of them), and
    /// an export that would hold more than `configuration.maxExportRecords` rows is refused
    /// before anything else is read. The returned export reads its listings from the same
    /// snapshot, a page at a time, as they are walked; the caller closes it. A user never seen
    /// has an export with no records.
    ///
    /// The snapshot reads the database alone (``PermissionSnapshot``), not what a replica's read
    /// model shows yet, so its audit entries always reach its head.
    /// - Throws: ``ExportTooLarge``; `PermissionError.unavailable` when no connection is free
    ///   for the snapshot, or the database cannot be reached.
    public func export(user: UserID) throws -> UserExport {
        let limit = configuration.maxExportRecords
        let at = now
        let snapshot = try store.openSnapshot()
        do {
            let (head, settings) = try snapshot.read { reader -> (AuditRecord?, UserSettings) in
                let head = try reader.auditHead()  // first: it begins the snapshot
                if try reader.exportRowCount(user: user, upTo: limit) > limit { throw ExportTooLarge(limit: limit) }
                return (head, try reader.userSettings(user) ?? UserSettings(user: user))
            }
            return UserExport(
                user: user, exportedAt: at, headSeq: head?.seq ?? 0, headHash: head?.hash ?? AuditChain.genesis,
                settings: settings, snapshot: snapshot, service: self)
        } catch {
            snapshot.close()
            throw error
        }
    }
}
