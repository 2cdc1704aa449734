/// The state an audit entry records before and after a change (SPEC §5 `from`/`to`).
public struct AuthorizationSnapshot: Hashable, Sendable {
    public let status: AuthorizationStatus
    public let level: Level?
    public let provisional: Bool
    public let once: Bool

    public init(status: AuthorizationStatus, level: Level? = nil, provisional: Bool = false, once: Bool = false) {
        self.status = status
        self.level = level
        self.provisional = provisional
        self.once = once
    }
}
