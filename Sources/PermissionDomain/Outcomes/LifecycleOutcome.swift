/// What a lifecycle event did (SPEC §4 Lifecycle): the authorizations it changed
/// (effective views after the change) and, for `backgroundLocationUsed`, the upgrade prompt
/// and whether the use was kept for location alerts (SPEC §11).
public struct LifecycleOutcome: Hashable, Sendable {
    public let changed: [Authorization]
    public let prompt: Prompt?
    /// For `backgroundLocationUsed`: whether the use was recorded (the app holds Always
    /// location access); nil for the other events.
    public let usageRecorded: Bool?

    public init(changed: [Authorization], prompt: Prompt?, usageRecorded: Bool? = nil) {
        self.changed = changed
        self.prompt = prompt
        self.usageRecorded = usageRecorded
    }
}
