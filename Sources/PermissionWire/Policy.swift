/// An operator policy (SPEC §4 Policies, MDM / parental controls): `restrict` makes matching
/// authorizations `restricted`; `allow` pre-approves them at `level`. `app` / `user` `null`
/// mean all apps / all users, and are always written (as `null`) so that scope is explicit.
public struct Policy: Codable, Sendable, Equatable {
    public var id: String
    public var service: String
    public var app: String?
    public var user: String?
    public var effect: Effect
    /// The pre-approved level of an `allow` policy; absent for `restrict`.
    public var level: String?

    public init(id: String, service: String, app: String? = nil, user: String? = nil, effect: Effect, level: String? = nil) {
        self.id = id
        self.service = service
        self.app = app
        self.user = user
        self.effect = effect
        self.level = level
    }

    /// Restrict beats allow.
    public enum Effect: String, WireEnum {
        case restrict, allow
    }

    private enum CodingKeys: String, CodingKey {
        case id, service, app, user, effect, level
    }

    /// Writes `app` and `user` as `null` when absent, `level` only when present.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(service, forKey: .service)
        if let app { try c.encode(app, forKey: .app) } else { try c.encodeNil(forKey: .app) }
        if let user { try c.encode(user, forKey: .user) } else { try c.encodeNil(forKey: .user) }
        try c.encode(effect, forKey: .effect)
        try c.encodeIfPresent(level, forKey: .level)
    }
}
