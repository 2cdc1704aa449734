import HTTPCore
import PermissionDomain

/// `POST /v1/reset` (SPEC §4 Reset, `tccutil reset SERVICE [BUNDLE_ID]`).
struct ResetController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.post("/v1/reset", access: .admin) { request in
            let body = try request.decode(Wire.ResetRequest.self)
            let count = try permissions.reset(
                scope: ResetScope(body.service), app: body.app.map { try AppID($0) },
                user: body.user.map { try UserID($0) }, actor: request.actor, requestId: request.requestId)
            return try Responses.json(Wire.ResetResult(count: Int64(count)))
        }
    }
}
