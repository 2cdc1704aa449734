import HTTPCore
import PermissionDomain

/// `DELETE /v1/users/{user}` (SPEC §11 Erasure, GDPR Art. 17): admin and consent keys.
struct UsersController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.delete("/v1/users/{user}", access: .eraseUser) { request in
            let erasure = try permissions.eraseUser(try request.user(), actor: request.actor, requestId: request.requestId)
            let result = Wire.UserErasureResult(
                pseudonym: erasure.pseudonym, authorizations: erasure.authorizations, prompts: erasure.prompts,
                settings: erasure.settings, policies: erasure.policies, consentSessions: erasure.consentSessions,
                locationAlerts: erasure.locationAlerts, auditSeq: erasure.seq)
            return try Responses.json(result, headers: ["Cache-Control": "no-store"])
        }
    }
}
