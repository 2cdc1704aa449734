/// The answer of the hot-path check `PermissionClient.status(user:app:service:)`: the
/// effective status (SPEC §3), with the level when authorized.
public enum AccessStatus: Sendable, Equatable, Hashable {
    case notDetermined
    case restricted
    case denied
    case authorized(level: String)

    /// Whether access is granted at any level.
    public var isAuthorized: Bool {
        if case .authorized = self { return true }
        return false
    }
}
