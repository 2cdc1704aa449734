import Foundation
import PermissionDomain
import TestSupport

/// The domain tests' own fixtures, over the shared values of ``Fixtures`` (TestSupport).
extension Fixtures {
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
