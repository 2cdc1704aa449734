import Foundation

/// The export's listings, each read from its snapshot in keyset pages of
/// ``PermissionService/Configuration/exportPageSize`` rows. `visit` gets every page (never an
/// empty one) before the next is read, and nothing of a page is kept once it returns. An error
/// of `visit` ends the walk and is rethrown.
extension UserExport {
    /// The authorization records, ordered by (app, service), with their effective view at
    /// ``exportedAt`` and their app's name.
    /// - Throws: `visit`'s error; the store's; ``PermissionError/unavailable(why:cause:)`` once
    ///   the export is closed.
    public func records(_ visit: ([Record]) throws -> Void) throws {
        var services: [ServiceID: ServiceDefinition] = [:]  // the catalogue's few, kept across pages
        try walk(from: nil as AuthorizationKey?, key: { $0.stored.key }, visit) { reader, after in
            let rows = try reader.authorizations(matching: AuthorizationFilter(user: user), after: after, limit: pageSize)
            var apps: [AppID: App?] = [:]  // records come by app: one read each, per page
            return try rows.map { stored in
                let definition = try services[stored.service] ?? service.resolveService(reader, stored.service)
                services[stored.service] = definition
                if apps[stored.app] == nil { apps[stored.app] = .some(try reader.app(stored.app)) }
                let effective = try service.effective(
                    reader, stored: stored, service: definition, now: exportedAt, apps: &apps)
                return Record(stored: stored, effective: effective, appName: apps[stored.app]??.name)
            }
        }
    }

    /// The prompts in their effective state at ``exportedAt``, ordered by id (creation order).
    /// - Throws: as ``records(_:)``.
    public func prompts(_ visit: ([Prompt]) throws -> Void) throws {
        try walk(from: nil as PromptID?, key: { $0.id }, visit) { reader, after in
            try reader.prompts(matching: PromptFilter(user: user), after: after, limit: pageSize)
                .map { $0.effective(at: exportedAt) }
        }
    }

    /// The location alert schedules of the user's apps with Always, ordered by app.
    /// - Throws: as ``records(_:)``.
    public func locationAlerts(_ visit: ([LocationAlertSchedule]) throws -> Void) throws {
        try walk(from: nil as AppID?, key: { $0.app }, visit) { reader, after in
            try reader.locationAlertSchedules(user: user, after: after, limit: pageSize)
        }
    }

    /// Every audit entry about the user in seq order, none after ``headSeq``: readable, and as
    /// stored.
    /// - Throws: as ``records(_:)``; ``PermissionError/unavailable(why:cause:)`` when the readable
    ///   entries and the stored records of a page differ.
    public func audit(_ visit: ([AuditItem]) throws -> Void) throws {
        try walk(from: Int64(0), key: { $0.record.seq }, visit) { reader, after in
            let stored = try reader.auditRecords(user: user, after: after, limit: pageSize)
            let readable = try reader.audit(
                query: AuditQuery(user: user, after: after, before: headSeq + 1, limit: pageSize))
            guard readable.map(\.seq) == stored.map(\.seq) else {
                throw PermissionError.unavailable(why: "the audit log read differently within one snapshot")
            }
            return zip(readable, stored).map { AuditItem(entry: $0, record: $1) }
        }
    }

    /// Reads a listing in keyset pages from the snapshot, each the rows after `key` of the last
    /// row of the one before (`start` for the first), and hands each to `visit` before the next
    /// is read; stops after an empty page or one shorter than ``pageSize``.
    private func walk<Row, Key>(
        from start: Key, key: (Row) -> Key, _ visit: ([Row]) throws -> Void,
        _ read: (any PermissionReader, Key) throws -> [Row]
    ) throws {
        var after = start
        while true {
            let page = try snapshot.read { try read($0, after) }
            guard let last = page.last else { return }
            try visit(page)
            if page.count < pageSize { return }
            after = key(last)
        }
    }
}
