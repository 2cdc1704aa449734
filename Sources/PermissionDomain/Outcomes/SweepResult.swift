/// What one sweep wrote: prompts expired and grants lapsed, Allow Once or expiring (actor `system`).
public struct SweepResult: Hashable, Sendable {
    public var expiredPrompts: Int
    public var lapsedGrants: Int

    public init(expiredPrompts: Int = 0, lapsedGrants: Int = 0) {
        self.expiredPrompts = expiredPrompts
        self.lapsedGrants = lapsedGrants
    }

    /// Whether the sweep changed nothing.
    public var isEmpty: Bool { expiredPrompts == 0 && lapsedGrants == 0 }
}
