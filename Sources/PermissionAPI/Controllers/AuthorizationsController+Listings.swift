import HTTPCore
import PermissionDomain

extension AuthorizationsController {
    /// The reverse queries: every authorization of a user (all apps), and every user of an
    /// app for a service, optionally by effective status; keyset-paged by position (`Cursor`):
    /// `<app>/<service>` within a user, a user id within an app's service.
    func registerListings(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/users/{user}/authorizations", access: .listAuthorizations, execution: .worker) { request in
            let user = try request.user()
            let query = try QueryParameters(request.http)
            var filter = AuthorizationFilter(user: user)
            filter.service = try query.value("service") { try ServiceID($0) }
            if let service = filter.service { _ = try permissions.service(service) }
            filter.status = try query.choice("status", AuthorizationStatus.self)
            let after = try query.string("after").map { try Cursor.position(user: user, appAndService: $0) }
            return try Self.page(request, permissions, filter: filter, after: after, query: query) {
                Cursor.appAndService($0)
            }
        }
        routes.get("/v1/apps/{app}/services/{service}/users", access: .listAuthorizations, execution: .worker) { request in
            let app = try request.app()
            let service = try request.service()
            _ = try permissions.service(service)
            let query = try QueryParameters(request.http)
            var filter = AuthorizationFilter(app: app, service: service)
            filter.status = try query.choice("status", AuthorizationStatus.self)
            let after = try query.value("after") { AuthorizationKey(user: try UserID($0), app: app, service: service) }
            return try Self.page(request, permissions, filter: filter, after: after, query: query) {
                $0.user.rawValue
            }
        }
    }

    /// One page; `cursor` turns the key of its last item into the listing's `nextCursor`.
    private static func page(
        _ request: APIRequest, _ permissions: PermissionService, filter: AuthorizationFilter,
        after: AuthorizationKey?, query: QueryParameters, cursor: (AuthorizationKey) -> String
    ) throws -> HTTPResponse {
        let limit = try query.limit(
            default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
        let page = try permissions.authorizations(matching: filter, after: after, limit: limit)
        return try Responses.json(
            Wire.AuthorizationList(
                items: page.items.map(WireMapping.authorization), nextCursor: page.nextAfter.map(cursor)))
    }
}
