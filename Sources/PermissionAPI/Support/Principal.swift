public import PermissionDomain

/// Who is calling: the actor audit entries record (SPEC §5), and later the key's role and
/// app binding (SPEC §6).
public struct Principal: Sendable, Hashable {
    /// The actor written into every audit entry of the request.
    public let actor: Actor
    /// The app an `app` key is bound to; nil otherwise.
    public let boundApp: AppID?

    public init(actor: Actor, boundApp: AppID? = nil) {
        self.actor = actor
        self.boundApp = boundApp
    }

    /// Every caller while no keys exist.
    public static let anonymous = Principal(actor: .anonymous)
}
