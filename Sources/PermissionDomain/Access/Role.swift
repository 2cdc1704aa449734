/// What an API key may do (SPEC §6): one role per key.
public enum Role: String, Sendable, Hashable, CaseIterable {
    /// Everything, including keys, apps, services, policies and reset.
    case admin
    /// The user's side: prompts and decisions, settings, set and revoke, lifecycle, reads.
    case consent
    /// Bound to one app id: its own authorizations, request, two lifecycle events, its events.
    case app
    /// The audit log, its verification, and the change feed.
    case auditor
}
