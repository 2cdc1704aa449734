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
    /// A reader with a read cache may not show yet the newest entries its snapshot holds (a
    /// replica that has not applied them): the export then waits for them (at most 5 s) and
    /// opens a new snapshot, so its audit entries always reach the head.
    /// - Throws: ``ExportTooLarge``; `PermissionError.unavailable` when the newest entries do not
    ///   become visible, or no connection is free for the snapshot.
    public func export(user: UserID) throws -> UserExport {
        let limit = configuration.maxExportRecords
        for _ in 0..<3 {
            let at = now
            let snapshot = try store.openSnapshot()
            let opened: ExportOpening
            do {
                opened = try snapshot.read { try openExport($0, user: user, limit: limit) }
            } catch {
                snapshot.close()
                throw error
            }
            switch opened {
            case .opened(let head, let settings):
                return UserExport(
                    user: user, exportedAt: at, headSeq: head?.seq ?? 0, headHash: head?.hash ?? AuditChain.genesis,
                    settings: settings, snapshot: snapshot, service: self)
            case .notShownYet(let revision):
                snapshot.close()
                _ = try store.awaitRevision(revision, timeout: .seconds(5))
            }
        }
        throw PermissionError.unavailable(why: "the newest audit entries are not visible here yet")
    }

    private enum ExportOpening {
        /// The chain head (nil for an empty log) and the settings.
        case opened(head: AuditRecord?, settings: UserSettings)
        /// The snapshot holds entries up to this revision that the reader does not show yet.
        case notShownYet(Int64)
    }

    private func openExport(_ reader: any PermissionReader, user: UserID, limit: Int) throws -> ExportOpening {
        let head = try reader.auditHead()  // first: it begins the snapshot
        let headSeq = head?.seq ?? 0
        guard try reader.lastAuditSeq() >= headSeq else { return .notShownYet(headSeq) }
        if try reader.exportRowCount(user: user, upTo: limit) > limit { throw ExportTooLarge(limit: limit) }
        let settings = try reader.userSettings(user) ?? UserSettings(user: user)
        return .opened(head: head, settings: settings)
    }
}
