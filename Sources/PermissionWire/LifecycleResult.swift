/// The answer of `POST /v1/users/{user}/apps/{app}/lifecycle` (200): the authorizations the
/// event changed (effective views after the change, possibly none) and, for
/// `backgroundLocationUsed`, the upgrade prompt it issued (absent otherwise).
public struct LifecycleResult: Codable, Sendable, Equatable {
    public var changed: [Authorization]
    public var prompt: Prompt?

    public init(changed: [Authorization], prompt: Prompt? = nil) {
        self.changed = changed
        self.prompt = prompt
    }
}
