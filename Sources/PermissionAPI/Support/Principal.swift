public import PermissionDomain

/// Who is calling (SPEC §6): the actor audit entries record (key id and role, SPEC §5), the
/// role, the app an `app` key is bound to, and the user a consent session is bound to.
public struct Principal: Sendable, Hashable {
    /// The actor written into every audit entry of the request.
    public let actor: Actor
    /// The key's role; nil for a caller without a valid key (only open routes).
    public let role: Role?
    /// The app an `app` key is bound to; nil otherwise.
    public let boundApp: AppID?
    /// The user a consent session (role `user`) is bound to; nil otherwise.
    public let boundUser: UserID?

    public init(actor: Actor, role: Role? = nil, boundApp: AppID? = nil, boundUser: UserID? = nil) {
        self.actor = actor
        self.role = role
        self.boundApp = boundApp
        self.boundUser = boundUser
    }

    /// The caller of a live consent session: role `user`, bound to the session's user.
    public init(session: ConsentSession) {
        self.init(actor: session.actor, role: .user, boundUser: session.user)
    }

    /// The caller of `key`.
    public init(key: APIKey) {
        self.init(actor: key.actor, role: key.role, boundApp: key.app)
    }

    /// A caller without a key: open routes only.
    public static let anonymous = Principal(actor: .anonymous)
}
