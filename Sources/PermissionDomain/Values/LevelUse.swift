/// What holds one level of a service in the store: the stored authorization records at that
/// level (their `level`, whatever their status) and the stored-pending prompts that ask for it.
/// A custom service's redefinition must keep every level something holds
/// (``PermissionError/levelInUse(service:level:authorizations:pendingPrompts:policies:)``); the
/// allow policies that grant a level are counted apart (``PermissionService``).
public struct LevelUse: Hashable, Sendable {
    public var authorizations: Int
    public var pendingPrompts: Int

    public init(authorizations: Int = 0, pendingPrompts: Int = 0) {
        self.authorizations = authorizations
        self.pendingPrompts = pendingPrompts
    }
}
