public import Foundation

/// An operator's restriction or pre-approval (MDM, parental controls; SPEC §4 Policies).
/// `app` and `user` nil mean all.
public struct Policy: Hashable, Sendable {
    public let id: PolicyID
    public let service: ServiceID
    public let app: AppID?
    public let user: UserID?
    public let effect: PolicyEffect
    /// The pre-approved level: present exactly when `effect` is `allow`.
    public let level: Level?
    public let updatedAt: Date

    /// Checks the effect/level pairing; whether the service has the level is checked by the service.
    /// - Throws: `PermissionError.invalidCombination(field: "level", ...)` (422).
    public init(
        id: PolicyID, service: ServiceID, app: AppID?, user: UserID?, effect: PolicyEffect, level: Level?,
        updatedAt: Date
    ) throws(PermissionError) {
        switch (effect, level) {
        case (.allow, nil): throw .invalidCombination(field: "level", why: "an allow policy needs a level")
        case (.restrict, .some): throw .invalidCombination(field: "level", why: "a restrict policy has no level")
        default: break
        }
        self.init(trusted: id, service: service, app: app, user: user, effect: effect, level: level, updatedAt: updatedAt)
    }

    /// Builds a policy already validated (read back from the store).
    package init(
        trusted id: PolicyID, service: ServiceID, app: AppID?, user: UserID?, effect: PolicyEffect, level: Level?,
        updatedAt: Date
    ) {
        self.id = id
        self.service = service
        self.app = app
        self.user = user
        self.effect = effect
        self.level = level
        self.updatedAt = updatedAt.truncatedToMilliseconds
    }

    /// Whether the policy applies to (user, app, service).
    public func matches(user: UserID, app: AppID, service: ServiceID) -> Bool {
        self.service == service && (self.app == nil || self.app == app) && (self.user == nil || self.user == user)
    }
}
