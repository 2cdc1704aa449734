import HTTPCore
import PermissionDomain

/// `/healthz` (the process answers) and `/readyz` (the database is writable and migrated);
/// both open (SPEC §6).
struct HealthController {
    let readiness: @Sendable () throws -> Void

    func register(on routes: inout APIRoutes) {
        let readiness = readiness
        routes.get("/healthz", access: .open) { _ in
            try Responses.json(Wire.Health(status: "ok"))
        }
        routes.get("/readyz", access: .open, execution: .worker) { request in
            do {
                try readiness()
            } catch {
                request.logger.warning("not ready", metadata: ["error": .string(String(describing: error))])
                throw APIProblem(.unavailable, "The database is not ready.", headers: ["Retry-After": "1"])
            }
            return try Responses.json(Wire.Health(status: "ready"))
        }
    }
}
