import PermissionDomain
import PermissionWire

extension WireMapping {
    /// The export document of `value`; `publicURL` is the base of the consent page named as the
    /// way to withdraw (relative when empty, like consent links).
    static func export(_ value: PermissionDomain.UserExport, publicURL: String) -> PermissionWire.UserExport {
        let user = value.user.rawValue
        let records = value.records.map { record in
            let stored = record.stored
            let view = record.effective
            let path = "/v1/users/\(user)/apps/\(stored.app.rawValue)/authorizations/\(stored.service.rawValue)"
            return PermissionWire.UserExport.ConsentRecord(
                recordId: path, principal: user,
                controller: .init(id: stored.app.rawValue, name: record.appName),
                dataCategory: stored.service.rawValue, level: view.level?.rawValue,
                purpose: stored.purpose.map { .init(text: $0.rawValue, language: stored.purposeLanguage?.rawValue) },
                state: status(view.status), reason: reason(view.reason), givenAt: stored.updatedAt,
                expiresAt: view.expiresAt, version: stored.version,
                withdrawal: .init(page: publicURL + "/consent/settings", method: "POST", path: path + "/revoke"))
        }
        let audit = value.audit.map { item in
            PermissionWire.UserExport.AuditItem(
                seq: item.record.seq, hash: item.record.hash, prevHash: item.record.prevHash,
                entry: WireMapping.audit(item.entry),
                stored: AuditChain.storedValues(of: item.record).map(storedValue))
        }
        return PermissionWire.UserExport(
            user: user, exportedAt: value.exportedAt,
            head: .init(seq: value.headSeq, hash: value.headHash),
            auditEncoding: .init(tag: AuditChain.tagText, columns: AuditChain.columns, genesis: AuditChain.genesis),
            consentRecords: records, prompts: value.prompts.map(prompt), settings: settings(value.settings),
            locationAlerts: value.locationAlerts.map(locationAlert), audit: audit)
    }

    private static func locationAlert(_ value: LocationAlertSchedule) -> PermissionWire.UserExport.LocationAlert {
        PermissionWire.UserExport.LocationAlert(
            app: value.app.rawValue, startedAt: value.startedAt, alertsShown: value.alertsShown,
            lastAlertAt: value.lastAlertAt, usesSinceAlert: value.usesSinceAlert,
            recentUses: value.recentUses.map { .init(hour: $0.start, count: $0.count) },
            nextAlertAt: value.dueAt)
    }

    private static func storedValue(_ value: AuditStoredValue) -> PermissionWire.UserExport.StoredValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let string): .text(string)
        }
    }
}
