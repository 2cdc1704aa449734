/// What a choice on a prompt grants: a level and the provisional/once flags.
public struct Grant: Hashable, Sendable {
    public let level: Level
    public let provisional: Bool
    public let once: Bool

    public init(level: Level, provisional: Bool = false, once: Bool = false) {
        self.level = level
        self.provisional = provisional
        self.once = once
    }
}
