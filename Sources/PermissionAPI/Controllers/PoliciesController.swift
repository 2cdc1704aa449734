import HTTPCore
import PermissionDomain

/// Operator policies (SPEC §4 Policies): restrict, or pre-approve at a level.
struct PoliciesController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/policies", access: .readCatalogue, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            let after = try query.value("after") { try PolicyID($0) }  // a position (Cursor)
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            let rows = try permissions.policies(after: after, limit: limit + 1)
            let items = Array(rows.prefix(limit))
            let next = rows.count > limit ? items.last?.id.rawValue : nil
            return try Responses.json(Wire.PolicyList(items: items.map(WireMapping.policy), nextCursor: next))
        }
        routes.get("/v1/policies/{id}", access: .readCatalogue) { request in
            try Responses.json(WireMapping.policy(permissions.policy(id: PolicyID(request.parameter("id")))))
        }
        routes.put("/v1/policies/{id}", access: .admin, conditional: true) { request in
            let id = try PolicyID(request.parameter("id"))
            let body = try request.decode(Wire.PolicyDefinition.self)
            // After the body: a request it refuses is refused whatever the preconditions say.
            let condition = try EntityTags.existence(request.headers)
            let put = try permissions.upsertPolicy(
                id: id, service: ServiceID(body.service), app: body.app.map { try AppID($0) },
                user: body.user.map { try UserID($0) }, effect: body.effect == .allow ? .allow : .restrict,
                level: body.level.map { try Level($0) }, condition: condition, actor: request.actor,
                requestId: request.requestId)
            return try Responses.put(WireMapping.policy(put.value), created: put.created, location: "/v1/policies/\(id)")
        }
        routes.delete("/v1/policies/{id}", access: .admin, conditional: true) { request in
            try permissions.deletePolicy(
                id: PolicyID(request.parameter("id")), condition: EntityTags.existence(request.headers),
                actor: request.actor, requestId: request.requestId)
            return Responses.noContent()
        }
    }
}
