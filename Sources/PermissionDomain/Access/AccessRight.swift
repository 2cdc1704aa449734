/// What a route of the API does, as access control sees it (SPEC §6). Every route declares
/// exactly one; `AccessMatrix` says which roles hold it.
public enum AccessRight: String, Sendable, Hashable, CaseIterable {
    /// `/healthz`, `/readyz`, `/openapi.yaml`: no key needed.
    case open
    /// `GET` one authorization (the hot path).
    case readAuthorization
    /// `POST /access/v1/evaluation(s)` (AuthZEN): the status read asked as a decision; the
    /// apps are named in the body, so an app key's binding is checked per item by the route.
    case evaluate
    /// Listings of authorizations: of a user (all apps), or of an app and service (all users).
    case listAuthorizations
    /// `POST .../request`: ask for access (may create a prompt; never grants by itself).
    case requestAccess
    /// `PUT` an authorization, `POST .../revoke`: the user's own changes.
    case setAuthorization
    /// `POST .../lifecycle`; an app key may only post `sessionEnded` and `reinstalled`.
    case lifecycle
    /// Prompts: listing and reading.
    case readPrompts
    /// `POST /v1/prompts/{id}/decision`: the user's answer.
    case decide
    /// `GET` a user's settings.
    case readSettings
    /// `PUT` a user's settings (Location Services).
    case writeSettings
    /// Reads of apps, services and policies.
    case readCatalogue
    /// Operators only: writes of apps, services and policies, reset, `/v1/keys`, and
    /// `/metrics` when it is not open.
    case admin
    /// `GET /v1/audit` and `GET /v1/audit/verify`.
    case audit
    /// `GET /v1/events`: the change feed; an app key sees only its own app's events.
    case readEvents
    /// `POST /v1/users/{user}/consent-sessions`, `DELETE /v1/consent-sessions/{id}`: making
    /// and ending the consent links of users (SPEC §10).
    case consentSessions
    /// `DELETE /v1/users/{user}`: erasing everything about a user (GDPR Art. 17).
    case eraseUser
    /// The user's own audit entries, as the consent pages show them: a consent session only.
    case ownHistory
    /// The consent session's own page and its logout: a consent session only.
    case consentSession
    /// `GET /v1/users/{user}/export` and the consent pages' download: everything kept about a
    /// user (GDPR Art. 15 and 20).
    case export
}
