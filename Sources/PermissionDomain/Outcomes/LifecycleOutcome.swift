/// What a lifecycle event did (SPEC §4 Lifecycle): the authorizations it changed
/// (effective views after the change) and, for `backgroundLocationUsed`, the upgrade prompt.
public struct LifecycleOutcome: Hashable, Sendable {
    public let changed: [Authorization]
    public let prompt: Prompt?

    public init(changed: [Authorization], prompt: Prompt?) {
        self.changed = changed
        self.prompt = prompt
    }
}
