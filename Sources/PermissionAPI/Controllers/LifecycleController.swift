import HTTPCore
import PermissionDomain

/// App lifecycle events (SPEC §4 Lifecycle): `sessionEnded`, `reinstalled`,
/// `backgroundLocationUsed`.
struct LifecycleController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.post("/v1/users/{user}/apps/{app}/lifecycle", access: .app) { request in
            let user = try request.user()
            let app = try request.app()
            let body = try request.decode(Wire.LifecycleEvent.self)
            guard let event = LifecycleEvent(rawValue: body.event.rawValue) else {
                throw APIProblem(.invalidRequest, "event: unknown lifecycle event")
            }
            let outcome = try permissions.lifecycle(
                user: user, app: app, event: event, actor: request.actor, requestId: request.requestId)
            return try Responses.json(
                Wire.LifecycleResult(
                    changed: outcome.changed.map(WireMapping.authorization), prompt: outcome.prompt.map(WireMapping.prompt)))
        }
    }
}
