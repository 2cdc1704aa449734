/// The body of `PUT /v1/policies/{id}`: a policy without its id (the id is in the path).
/// `{"service": "camera", "app": null, "user": "u42", "effect": "restrict"}`.
public struct PolicyDefinition: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["service", "app", "user", "effect", "level"]

    public var service: String
    public var app: String?
    public var user: String?
    public var effect: Policy.Effect
    public var level: String?

    public init(service: String, app: String? = nil, user: String? = nil, effect: Policy.Effect, level: String? = nil) {
        self.service = service
        self.app = app
        self.user = user
        self.effect = effect
        self.level = level
    }

    private enum CodingKeys: String, CodingKey {
        case service, app, user, effect, level
    }

    /// Writes `app` and `user` as `null` when absent, `level` only when present.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(service, forKey: .service)
        if let app { try c.encode(app, forKey: .app) } else { try c.encodeNil(forKey: .app) }
        if let user { try c.encode(user, forKey: .user) } else { try c.encodeNil(forKey: .user) }
        try c.encode(effect, forKey: .effect)
        try c.encodeIfPresent(level, forKey: .level)
    }
}
