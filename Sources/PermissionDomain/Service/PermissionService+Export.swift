import Foundation

extension PermissionService {
    /// Rows asked of the store per keyset page while an export is read.
    static let exportPageSize = 500

    /// Everything kept about `user` (GDPR Art. 15 and 20), read in one snapshot so that the
    /// records, the audit entries and the chain head agree: each listing is read in keyset pages
    /// inside it, and the reading stops as soon as the export would hold more than
    /// `configuration.maxExportRecords` records. A user never seen has an export with no records.
    ///
    /// A reader with a read cache may not show yet the newest entries its snapshot holds (a
    /// replica that has not applied them): the export then waits for them (at most 5 s) and reads
    /// again, so its audit entries always reach the head.
    /// - Throws: ``ExportTooLarge``; `PermissionError.unavailable` when the newest entries do not
    ///   become visible.
    public func export(user: UserID) throws -> UserExport {
        let limit = configuration.maxExportRecords
        for _ in 0..<3 {
            let at = now
            switch try store.read({ try readExport($0, user: user, now: at, limit: limit) }) {
            case .read(let export):
                return export
            case .notShownYet(let revision):
                _ = try store.awaitRevision(revision, timeout: .seconds(5))
            }
        }
        throw PermissionError.unavailable(why: "the newest audit entries are not visible here yet")
    }

    private enum ExportRead {
        case read(UserExport)
        /// The snapshot holds entries up to this revision that the reader does not show yet.
        case notShownYet(Int64)
    }

    private func readExport(_ reader: any PermissionReader, user: UserID, now: Date, limit: Int) throws -> ExportRead {
        let head = try reader.auditHead()  // first: it begins the snapshot
        let headSeq = head?.seq ?? 0
        guard try reader.lastAuditSeq() >= headSeq else { return .notShownYet(headSeq) }
        var count = 0
        func take(_ rows: Int) throws {
            count += rows
            if count > limit { throw ExportTooLarge(limit: limit) }
        }
        let pageSize = Self.exportPageSize

        var records: [UserExport.Record] = []
        var services: [ServiceID: ServiceDefinition] = [:]
        var appNames: [AppID: String?] = [:]
        var key: AuthorizationKey?
        while true {
            let page = try reader.authorizations(matching: AuthorizationFilter(user: user), after: key, limit: pageSize)
            try take(page.count)
            for stored in page {
                let service = try services[stored.service] ?? resolveService(reader, stored.service)
                services[stored.service] = service
                if appNames[stored.app] == nil { appNames[stored.app] = .some(try reader.app(stored.app)?.name) }
                records.append(
                    UserExport.Record(
                        stored: stored, effective: try effective(reader, stored: stored, service: service, now: now),
                        appName: appNames[stored.app] ?? nil))
            }
            key = page.last?.key
            if page.count < pageSize { break }
        }

        var prompts: [Prompt] = []
        var promptID: PromptID?
        while true {
            let page = try reader.prompts(matching: PromptFilter(user: user), after: promptID, limit: pageSize)
            try take(page.count)
            prompts.append(contentsOf: page.map { $0.effective(at: now) })
            promptID = page.last?.id
            if page.count < pageSize { break }
        }

        let settings = try reader.userSettings(user) ?? UserSettings(user: user)

        var locationAlerts: [LocationAlertSchedule] = []
        var alertApp: AppID?
        while true {
            let page = try reader.locationAlertSchedules(user: user, after: alertApp, limit: pageSize)
            try take(page.count)
            locationAlerts.append(contentsOf: page)
            alertApp = page.last?.app
            if page.count < pageSize { break }
        }

        var audit: [UserExport.AuditItem] = []
        var after: Int64 = 0
        while true {
            let stored = try reader.auditRecords(user: user, after: after, limit: pageSize)
            try take(stored.count)
            let readable = try reader.audit(
                query: AuditQuery(user: user, after: after, before: headSeq + 1, limit: pageSize))
            guard readable.map(\.seq) == stored.map(\.seq) else {
                throw PermissionError.unavailable(why: "the audit log read differently within one snapshot")
            }
            audit.append(contentsOf: zip(readable, stored).map { UserExport.AuditItem(entry: $0, record: $1) })
            guard let last = stored.last, stored.count == pageSize else { break }
            after = last.seq
        }

        return .read(
            UserExport(
                user: user, exportedAt: now, headSeq: headSeq, headHash: head?.hash ?? AuditChain.genesis,
                records: records, prompts: prompts, settings: settings, locationAlerts: locationAlerts, audit: audit))
    }
}
