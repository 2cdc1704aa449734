/// App lifecycle events (SPEC §4 Lifecycle).
public enum LifecycleEvent: String, Sendable, CaseIterable, Hashable {
    /// Ends Allow Once grants.
    case sessionEnded
    /// Resets services with `resetOnReinstall` (location) and keeps every other one.
    case reinstalled
    /// One use of location in the background: issues the upgrade prompt for a provisional
    /// Always grant, and counts towards location alerts for any Always grant (SPEC §11); never
    /// sent by the app itself.
    case backgroundLocationUsed

    /// Whether an app (rather than the consent side) may send it: only events that take access away.
    public var isAllowedFromApp: Bool { self != .backgroundLocationUsed }
}
