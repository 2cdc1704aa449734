import HTTPCore
import PermissionDomain
import PermissionWire

/// `GET /v1/users/{user}/export` (GDPR Art. 15 and 20): everything kept about a user as one
/// JSON document (``PermissionWire/UserExport``), read in one snapshot, at most
/// `--max-export-records` records (beyond: 422 `export-too-large`, nothing built). The consent
/// pages offer the same document to the session's user at `/consent/export`
/// (``ConsentController``). A user exists only through their records, so an unknown user's
/// export is a valid document with none.
struct ExportController {
    let permissions: PermissionService
    let publicURL: String

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let publicURL = publicURL
        routes.get("/v1/users/{user}/export", access: .export, execution: .worker) { request in
            let user = try request.user()
            do {
                return try Self.response(permissions.export(user: user), publicURL: publicURL)
            } catch let error as ExportTooLarge {
                throw Self.problem(error, user: user)
            }
        }
    }

    /// The document as `application/json`, never cached (it is personal data).
    /// - Parameter attachment: a file name to offer the document as a download under.
    static func response(
        _ export: PermissionDomain.UserExport, publicURL: String, attachment: String? = nil
    ) throws -> HTTPResponse {
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if let attachment { headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(attachment)\"") }
        return try Responses.json(WireMapping.export(export, publicURL: publicURL), headers: headers)
    }

    /// `export-too-large` (422) for `error`, naming the limit and where the history can be read
    /// in pages instead.
    static func problem(_ error: ExportTooLarge, user: UserID) -> APIProblem {
        APIProblem(
            .exportTooLarge,
            "The export of \(user) would hold more than \(error.limit) records (--max-export-records); read the audit "
                + "history in pages with GET /v1/audit?user=\(user) instead.",
            extensions: [("limit", String(error.limit))])
    }
}
