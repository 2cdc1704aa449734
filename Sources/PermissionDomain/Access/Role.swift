/// What a caller may do (SPEC §6): one role per API key, and `user` for a consent session
/// (SPEC §10), which is never a key.
public enum Role: String, Sendable, Hashable, CaseIterable {
    /// Everything, including keys, apps, services, policies and reset.
    case admin
    /// The user's side: prompts and decisions, settings, set and revoke, lifecycle, reads.
    case consent
    /// Bound to one app id: its own authorizations, request, two lifecycle events, its events.
    case app
    /// The audit log, its verification, and the change feed.
    case auditor
    /// A consent session bound to one user: that user's prompts, decisions, settings,
    /// authorizations and history, through `/consent/` only. Never an API key's role.
    case user

    /// The roles an API key may have: every role but ``user``.
    public static let keyRoles: [Role] = allCases.filter(\.isKeyRole)

    /// Whether an API key may have this role (not ``user``, which only a consent session has).
    public var isKeyRole: Bool { self != .user }
}
