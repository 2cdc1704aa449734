import HTTPCore
import PermissionDomain

/// App lifecycle events (SPEC §4 Lifecycle): `sessionEnded`, `reinstalled`,
/// `backgroundLocationUsed`.
struct LifecycleController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.post("/v1/users/{user}/apps/{app}/lifecycle", access: .lifecycle) { request in
            let user = try request.user()
            let app = try request.app()
            let body = try request.decode(Wire.LifecycleEvent.self)
            guard let event = LifecycleEvent(rawValue: body.event.rawValue) else {
                throw APIProblem(.invalidRequest, "event: unknown lifecycle event")
            }
            if let role = request.principal.role, !AccessMatrix.mayPost(event, as: role) {
                throw AccessControl.forbidden("A key with role \(role.rawValue) may not post \(event.rawValue).")
            }
            let outcome = try permissions.lifecycle(
                user: user, app: app, event: event, usedAt: body.usedAt, actor: request.actor,
                requestId: request.requestId)
            return try Responses.json(
                Wire.LifecycleResult(
                    changed: outcome.changed.map(WireMapping.authorization), prompt: outcome.prompt.map(WireMapping.prompt),
                    usageRecorded: outcome.usageRecorded))
        }
    }
}
