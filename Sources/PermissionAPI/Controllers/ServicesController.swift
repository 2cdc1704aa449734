import HTTPCore
import PermissionDomain

/// The catalogue (SPEC §2): built-in services and an operator's custom ones.
struct ServicesController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/services", access: .readCatalogue) { _ in
            try Responses.json(Wire.ServiceList(items: permissions.services().map(WireMapping.service)))
        }
        routes.get("/v1/services/{service}", access: .readCatalogue) { request in
            try Responses.json(WireMapping.service(permissions.service(request.service())))
        }
        routes.put("/v1/services/{service}", access: .admin, conditional: true) { request in
            let id = try request.service()
            let body = try request.decode(Wire.ServiceRegistration.self)
            let levels = try body.levels.map { try Level($0) }
            var keys: [[String]] = []
            for level in body.levels {
                guard let levelKeys = body.purposeKeys[level] else {
                    throw PermissionError.invalidCombination(field: "purposeKeys", why: "no purpose keys for level \(level)")
                }
                keys.append(levelKeys)
            }
            if let extra = body.purposeKeys.keys.sorted().first(where: { !body.levels.contains($0) }) {
                throw PermissionError.invalidCombination(field: "purposeKeys", why: "\(extra) is not one of the levels")
            }
            let condition = try EntityTags.existence(request.headers)  // after the body, as for policies
            let put = try permissions.upsertService(
                id: id, levels: levels, purposeKeys: keys, condition: condition, actor: request.actor,
                requestId: request.requestId)
            return try Responses.put(
                WireMapping.service(put.value), created: put.created, location: "/v1/services/\(id)")
        }
    }
}
