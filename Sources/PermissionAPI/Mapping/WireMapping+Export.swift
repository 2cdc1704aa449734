import PermissionDomain
import PermissionWire

/// The parts of the export document (``PermissionWire/UserExport``): one function per element
/// of its listings, which the export writes a page at a time (``ExportController``).
extension WireMapping {
    /// One authorization as a consent record; `publicURL` is the base of the consent page named
    /// as the way to withdraw (relative when empty, like consent links). A record a policy
    /// decides names no way to withdraw: its revoke is refused (`409`), and its settings row
    /// says it is managed.
    static func consentRecord(
        _ record: PermissionDomain.UserExport.Record, publicURL: String
    ) -> PermissionWire.UserExport.ConsentRecord {
        let stored = record.stored
        let view = record.effective
        let user = stored.user.rawValue
        let path = "/v1/users/\(user)/apps/\(stored.app.rawValue)/authorizations/\(stored.service.rawValue)"
        return PermissionWire.UserExport.ConsentRecord(
            recordId: path, principal: user,
            controller: .init(id: stored.app.rawValue, name: record.appName),
            dataCategory: stored.service.rawValue, level: view.level?.rawValue,
            purpose: stored.purpose.map { .init(text: $0.rawValue, language: stored.purposeLanguage?.rawValue) },
            state: status(view.status), reason: reason(view.reason), givenAt: stored.updatedAt,
            expiresAt: view.expiresAt, version: stored.version,
            withdrawal: view.reason == .policy
                ? nil : .init(page: publicURL + "/consent/settings", method: "POST", path: path + "/revoke"))
    }

    /// One audit entry, readable and with its stored values.
    static func auditItem(_ item: PermissionDomain.UserExport.AuditItem) -> PermissionWire.UserExport.AuditItem {
        PermissionWire.UserExport.AuditItem(
            seq: item.record.seq, hash: item.record.hash, prevHash: item.record.prevHash,
            entry: WireMapping.audit(item.entry),
            stored: AuditChain.storedValues(of: item.record).map(storedValue))
    }

    /// One location alert schedule.
    static func locationAlert(_ value: LocationAlertSchedule) -> PermissionWire.UserExport.LocationAlert {
        PermissionWire.UserExport.LocationAlert(
            app: value.app.rawValue, startedAt: value.startedAt, alertsShown: value.alertsShown,
            lastAlertAt: value.lastAlertAt, usesSinceAlert: value.usesSinceAlert,
            recentUses: value.recentUses.map { .init(hour: $0.start, count: $0.count) },
            nextAlertAt: value.dueAt)
    }

    /// The chain head of the export's snapshot.
    static func exportHead(_ value: PermissionDomain.UserExport) -> PermissionWire.UserExport.Head {
        .init(seq: value.headSeq, hash: value.headHash)
    }

    /// How the stored values are hashed: the same for every export of this server.
    static let auditEncoding = PermissionWire.UserExport.AuditEncoding(
        tag: AuditChain.tagText, columns: AuditChain.columns, genesis: AuditChain.genesis)

    private static func storedValue(_ value: AuditStoredValue) -> PermissionWire.UserExport.StoredValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let string): .text(string)
        }
    }
}
