import Foundation
import PermissionDomain

/// Shared values for the domain tests: a fixed time and well-formed ids.
enum Fixtures {
    /// 2026-11-22T10:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_795_341_600)
    static let user = try! UserID("u42")
    static let otherUser = try! UserID("u43")
    static let app = try! AppID("com.example.maps")
    static let otherApp = try! AppID("com.example.other")

    /// Every purpose key of the built-in catalogue, each with a distinct text.
    static let allPurposeStrings: [String: PurposeString] = {
        var strings: [String: PurposeString] = [:]
        for service in Catalogue.builtins {
            for keys in service.purposeKeys {
                for key in keys { strings[key] = try! PurposeString("Purpose of \(key).") }
            }
        }
        return strings
    }()

    /// A registered app with every built-in purpose string.
    static func registeredApp(_ id: AppID = app, without missing: Set<String> = []) -> App {
        try! App(
            id: id, name: "Maps", purposeStrings: allPurposeStrings.filter { !missing.contains($0.key) }, updatedAt: t0)
    }

    static func service(_ id: ServiceID) -> ServiceDefinition { Catalogue.builtin(id)! }

    /// A stored record of `service` for (user, app).
    static func stored(
        _ service: ServiceID, _ status: AuthorizationStatus = .notDetermined, _ level: Level? = nil,
        provisional: Bool = false, once: Bool = false, expiresAt: Date? = nil, reason: Reason = .default,
        declined: [Level] = [], version: Int64 = 0
    ) -> StoredAuthorization {
        StoredAuthorization(
            user: user, app: app, service: service, status: status, level: level, provisional: provisional, once: once,
            expiresAt: expiresAt, reason: reason, declinedLevels: declined,
            updatedAt: version > 0 ? t0 : nil, version: version)
    }

    static func policy(
        _ id: String, _ service: ServiceID, _ effect: PolicyEffect, _ level: Level? = nil, app: AppID? = nil,
        user: UserID? = nil
    ) -> Policy {
        try! Policy(id: PolicyID(id), service: service, app: app, user: user, effect: effect, level: level, updatedAt: t0)
    }

    /// The effective view of `stored` with nothing else applying.
    static func plain(_ stored: StoredAuthorization, at now: Date = t0) -> Authorization {
        Rules.effective(stored: stored, service: service(stored.service), policies: [], settings: nil, now: now)
    }

    /// A pending prompt made by the request rule for `level`.
    static func prompt(
        _ service: ServiceID, _ level: Level, kind: PromptKind = .request, createdAt: Date = t0
    ) -> Prompt {
        let definition = Self.service(service)
        let key = kind == .upgrade ? definition.purposeKeys(for: level).last! : definition.purposeKeys(for: level).first!
        return Prompt(
            id: try! PromptID("p-\(service)-\(level)"), user: user, app: app, service: service, kind: kind,
            requestedLevel: level, options: Rules.options(kind: kind, level: level, service: definition),
            purpose: allPurposeStrings[key]!, purposeKey: key, state: .pending, createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(600))
    }
}
