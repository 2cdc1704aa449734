import HTTPCore
import PermissionDomain

/// "Download My Data": the session user's export (`GET /v1/users/{user}/export`'s document,
/// streamed the same way) as a JSON download, through the session's cookie like every consent
/// page.
extension ConsentController {
    func registerExport(on routes: inout APIRoutes) {
        let permissions = permissions
        let publicURL = configuration.publicURL
        let timeout = configuration.exportTimeout
        routes.page(.get, "/consent/export", access: .export, sessions: sessions) { _, context, visit in
            do {
                return ExportController.response(
                    try permissions.export(user: visit.user), publicURL: publicURL,
                    attachment: "permissions-\(visit.user.rawValue).json", timeout: timeout, logger: context.logger)
            } catch is ExportTooLarge {
                throw ConsentPageError.exportTooLarge
            }
        }
    }
}
