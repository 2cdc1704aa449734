/// The answer of `POST /v1/users/{user}/apps/{app}/lifecycle` (200): the authorizations the
/// event changed (effective views after the change, possibly none) and, for
/// `backgroundLocationUsed`, the upgrade prompt it issued (absent otherwise) and whether the
/// use was kept for location alerts (`usageRecorded`: the app holds Always; absent for the
/// other events).
public struct LifecycleResult: Codable, Sendable, Equatable {
    public var changed: [Authorization]
    public var prompt: Prompt?
    public var usageRecorded: Bool?

    public init(changed: [Authorization], prompt: Prompt? = nil, usageRecorded: Bool? = nil) {
        self.changed = changed
        self.prompt = prompt
        self.usageRecorded = usageRecorded
    }
}
