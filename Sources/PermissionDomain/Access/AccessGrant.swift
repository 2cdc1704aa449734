/// How far a role holds an `AccessRight` (SPEC §6).
public enum AccessGrant: Sendable, Hashable {
    /// Not at all: 403.
    case denied
    /// For any data.
    case granted
    /// Only for the app the key is bound to: the route's `{app}` must be that app, and
    /// feeds are filtered to it. A route without an app scope is then denied.
    case ownApp
}
