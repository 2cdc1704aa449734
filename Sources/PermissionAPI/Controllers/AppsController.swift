import HTTPCore
import PermissionDomain

/// Registered apps and their purpose strings (SPEC §4 Apps).
struct AppsController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/apps", access: .readCatalogue, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            let after = try query.value("after") { try AppID($0) }  // a position (Cursor)
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            let rows = try permissions.apps(after: after, limit: limit + 1)
            let items = Array(rows.prefix(limit))
            let next = rows.count > limit ? items.last?.id.rawValue : nil
            return try Responses.json(Wire.AppList(items: items.map(WireMapping.app), nextCursor: next))
        }
        routes.get("/v1/apps/{app}", access: .readCatalogue) { request in
            try Responses.json(WireMapping.app(permissions.app(request.app())))
        }
        routes.put("/v1/apps/{app}", access: .admin) { request in
            let id = try request.app()
            let body = try request.decode(Wire.AppRegistration.self)
            var purposes: [String: PurposeString] = [:]
            for (key, text) in body.purposeStrings {
                do {
                    purposes[key] = try PurposeString(text)
                } catch {
                    throw PermissionError.invalidArgument(
                        field: "purposeStrings/\(key)", why: "must be 1-500 characters without control characters")
                }
            }
            let put = try permissions.upsertApp(
                id: id, name: body.name, purposeStrings: purposes, actor: request.actor, requestId: request.requestId)
            return try Responses.put(WireMapping.app(put.value), created: put.created, location: "/v1/apps/\(id)")
        }
    }
}
