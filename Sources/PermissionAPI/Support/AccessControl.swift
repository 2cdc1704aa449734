import HTTPCore
import PermissionDomain

/// The one place a request's right is checked (SPEC §6): the route's `RouteAccess` against
/// the principal's role in `AccessMatrix`, and an app key's binding against the route's
/// `{app}`, and a consent session's binding against the route's `{user}`. Controllers only
/// narrow feeds (events), the lifecycle events an app may post, and a session's prompts by id.
enum AccessControl {
    /// - Throws: 401 `unauthorized` without a role; 403 `forbidden` outside the role or the app.
    static func authorize(_ principal: Principal, for access: RouteAccess, context: RequestContext) throws {
        guard let role = principal.role else {
            throw APIProblem(
                .unauthorized, "This endpoint needs an API key: Authorization: Bearer <key>.",
                headers: ["WWW-Authenticate": KeyAuthenticator.challenge])
        }
        switch AccessMatrix.grant(role, access) {
        case .granted:
            return
        case .denied:
            throw forbidden("A key with role \(role.rawValue) may not do this.")
        case .ownApp:
            if let app = context.parameters["app"] {
                guard app == principal.boundApp?.rawValue else { throw forbidden("This key is bound to another app.") }
                return
            }
            // Only feeds and evaluations (whose body names the apps, checked per item by
            // `AuthZENController`) narrow themselves to the key's app; any other route needs an {app}.
            guard access == .readEvents || access == .evaluate else { throw forbidden("This key is bound to one app.") }
        case .ownUser:
            // A consent session: a route's {user} must be its own; routes without one act on
            // the session's user by construction (the `/consent/` pages).
            if let user = context.parameters["user"] {
                guard user == principal.boundUser?.rawValue else { throw forbidden("This session is another user's.") }
            }
            guard principal.boundUser != nil else { throw forbidden("Only a consent session acts for its user.") }
        }
    }

    static func forbidden(_ detail: String) -> APIProblem {
        APIProblem(.forbidden, detail)
    }
}
