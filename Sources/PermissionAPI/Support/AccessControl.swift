import HTTPCore
import PermissionDomain

/// The one place a request's right is checked (SPEC §6): the route's `RouteAccess` against
/// the principal's role in `AccessMatrix`, and an app key's binding against the route's
/// `{app}`. Controllers only narrow feeds (events) and the lifecycle events an app may post.
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
            // Only feeds narrow themselves to the key's app; any other route needs an {app}.
            guard access == .readEvents else { throw forbidden("This key is bound to one app.") }
        }
    }

    static func forbidden(_ detail: String) -> APIProblem {
        APIProblem(.forbidden, detail)
    }
}
