import PermissionDomain
import PermissionWire

extension WireMapping {
    static func app(_ value: PermissionDomain.App) -> Wire.App {
        Wire.App(
            id: value.id.rawValue, name: value.name, purposeStrings: value.purposeStrings.mapValues(\.rawValue),
            localizedPurposeStrings: Dictionary(
                uniqueKeysWithValues: value.localizedPurposeStrings.map { ($0.key.rawValue, $0.value.mapValues(\.rawValue)) }),
            developmentLanguage: value.developmentLanguage?.rawValue, version: value.version, updatedAt: value.updatedAt)
    }

    static func policy(_ value: PermissionDomain.Policy) -> Wire.Policy {
        Wire.Policy(
            id: value.id.rawValue, service: value.service.rawValue, app: value.app?.rawValue,
            user: value.user?.rawValue, effect: value.effect == .allow ? .allow : .restrict,
            level: value.level?.rawValue)
    }

    static func service(_ value: PermissionDomain.ServiceDefinition) -> Wire.ServiceDefinition {
        var keys: [String: [String]] = [:]
        for (level, purposeKeys) in zip(value.levels, value.purposeKeys) { keys[level.rawValue] = purposeKeys }
        return Wire.ServiceDefinition(
            id: value.id.rawValue, levels: value.levels.map(\.rawValue), purposeKeys: keys, builtin: value.builtin,
            specials: value.specials.map(\.rawValue).sorted())
    }

    static func settings(_ value: PermissionDomain.UserSettings) -> Wire.UserSettings {
        Wire.UserSettings(locationServicesEnabled: value.locationServicesEnabled, locale: value.locale?.rawValue)
    }

    static func audit(_ value: PermissionDomain.AuditEntry) -> Wire.AuditEntry {
        Wire.AuditEntry(
            seq: value.seq, at: value.at,
            actor: Wire.AuditEntry.Actor(keyId: value.actor.keyId, role: value.actor.role),
            action: value.action.rawValue, user: value.user?.rawValue, app: value.app?.rawValue,
            service: value.service?.rawValue, from: value.from.map(snapshot), to: value.to.map(snapshot),
            reason: value.reason?.rawValue, purpose: value.purpose?.rawValue, promptId: value.promptId?.rawValue,
            requestId: value.requestId, detail: value.detail.isEmpty ? nil : value.detail, hash: value.hash,
            prevHash: value.prevHash, purposeHash: value.purposeHash, pseudonym: value.pseudonym,
            erased: value.personalDataErased ? true : nil)
    }

    static func snapshot(_ value: AuthorizationSnapshot) -> Wire.AuditEntry.Snapshot {
        Wire.AuditEntry.Snapshot(
            status: status(value.status), level: value.level?.rawValue, provisional: value.provisional, once: value.once)
    }
}
