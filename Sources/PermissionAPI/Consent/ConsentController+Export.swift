import HTTPCore
import PermissionDomain

/// "Download My Data": the session user's export (`GET /v1/users/{user}/export`'s document)
/// as a JSON download, through the session's cookie like every consent page.
extension ConsentController {
    func registerExport(on routes: inout APIRoutes) {
        let permissions = permissions
        let publicURL = configuration.publicURL
        routes.page(.get, "/consent/export", access: .export, sessions: sessions) { _, _, visit in
            do {
                return try ExportController.response(
                    permissions.export(user: visit.user), publicURL: publicURL,
                    attachment: "permissions-\(visit.user.rawValue).json")
            } catch is ExportTooLarge {
                throw ConsentPageError.exportTooLarge
            }
        }
    }
}
