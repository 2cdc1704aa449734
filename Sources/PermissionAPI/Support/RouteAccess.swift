/// What a route does, as access control sees it (SPEC §6 roles). Every route declares one;
/// an `Authenticator` decides whether a principal may use it.
public enum RouteAccess: String, Sendable, Hashable, CaseIterable {
    /// `/healthz`, `/readyz`, `/openapi.yaml`: no key needed.
    case open
    /// Reads of authorizations, prompts, apps, services, policies and settings.
    case read
    /// An app's own calls: request access, read its authorization, lifecycle events.
    case app
    /// The user's side: decisions, settings, revoke, Location Services.
    case consent
    /// Operators: apps, services, policies, reset.
    case admin
    /// The audit log and the change feed.
    case audit
}
