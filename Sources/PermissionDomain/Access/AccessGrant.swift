/// How far a role holds an `AccessRight` (SPEC §6).
public enum AccessGrant: Sendable, Hashable {
    /// Not at all: 403.
    case denied
    /// For any data.
    case granted
    /// Only for the app the key is bound to: the route's `{app}` must be that app, and
    /// feeds are filtered to it. A route without an app scope is then denied.
    case ownApp
    /// Only for the user a consent session is bound to: the route's `{user}` must be that
    /// user, and a prompt or other item found by id must be theirs. A route without a user
    /// scope is then denied.
    case ownUser
}
