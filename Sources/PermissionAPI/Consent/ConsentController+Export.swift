import HTTPCore
import PermissionDomain

/// "Download My Data": the session user's export (`GET /v1/users/{user}/export`'s document,
/// streamed the same way) as a JSON download, through the session's cookie like every consent
/// page. One at a time a session (``ConsentController/exports``): a second while the first is
/// read is `429` with `Retry-After`, so that one user cannot hold every export slot.
extension ConsentController {
    func registerExport(on routes: inout APIRoutes) {
        let permissions = permissions
        let publicURL = configuration.publicURL
        let timeout = configuration.exportTimeout
        let exports = exports
        routes.page(.get, "/consent/export", access: .export, sessions: sessions) { _, context, visit in
            let slot: StreamLimiter.Slot
            do {
                slot = try exports.acquire(key: visit.session.id.rawValue)
            } catch {
                throw ConsentPageError.exportRunning
            }
            do {
                return ExportController.response(
                    try permissions.export(user: visit.user), publicURL: publicURL,
                    attachment: "permissions-\(visit.user.rawValue).json", timeout: timeout, holding: slot,
                    logger: context.logger)
            } catch is ExportTooLarge {
                throw ConsentPageError.exportTooLarge
            }
        }
    }
}
