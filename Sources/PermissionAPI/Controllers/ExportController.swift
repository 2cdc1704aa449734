import HTTPCore
import Logging
import PermissionDomain
import PermissionWire

/// `GET /v1/users/{user}/export` (GDPR Art. 15 and 20): everything kept about a user as one
/// JSON document (``PermissionWire/UserExport``), read in one snapshot, at most
/// `--max-export-records` records (beyond: 422 `export-too-large`, decided before anything is
/// sent). The consent pages offer the same document to the session's user at `/consent/export`
/// (``ConsentController``). A user exists only through their records, so an unknown user's
/// export is a valid document with none.
///
/// The document is streamed (chunked) as its listings are read, a page at a time, so an export
/// in flight holds one page of rows, not the whole user: the handler opens the export (the
/// snapshot, the count, the limit) on its worker thread and returns at once; the body is
/// written on the worker thread the engine runs streams on, from the same snapshot, which is
/// closed when the body ends, fails or is never sent. A failure after the head was sent ends
/// the body without its last chunk, so the client sees an incomplete response, never a
/// document that looks complete. So does an export not sent whole within `--export-timeout` of
/// its snapshot's opening, which bounds how long a slow but steady client holds the snapshot
/// (and with it the database's log or vacuum).
struct ExportController {
    let permissions: PermissionService
    let publicURL: String
    /// `--export-timeout`.
    let timeout: Duration

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let publicURL = publicURL
        let timeout = timeout
        routes.get("/v1/users/{user}/export", access: .export, execution: .worker) { request in
            let user = try request.user()
            do {
                return Self.response(
                    try permissions.export(user: user), publicURL: publicURL, timeout: timeout, logger: request.logger)
            } catch let error as ExportTooLarge {
                throw Self.problem(error, user: user)
            }
        }
    }

    /// The document as `application/json`, never cached (it is personal data), streamed from
    /// `export`, which the response owns: it is closed when the body has been written, when
    /// writing it failed, when `timeout` (counted from now, the snapshot having just opened)
    /// ran out first, or when the response is released unsent.
    /// - Parameters:
    ///   - attachment: a file name to offer the document as a download under.
    ///   - timeout: `--export-timeout`.
    ///   - slot: a slot the response holds until it is released (a session's one download).
    ///   - logger: the request's, for a failure of the store after the head was sent, and an
    ///     export cut at `timeout`.
    static func response(
        _ export: PermissionDomain.UserExport, publicURL: String, attachment: String? = nil, timeout: Duration,
        holding slot: StreamLimiter.Slot? = nil, logger: Logger
    ) -> HTTPResponse {
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if let attachment { headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(attachment)\"") }
        headers.add(name: "Content-Type", value: Responses.json)
        let opened = ContinuousClock.now
        return HTTPResponse(
            status: .ok, headers: headers,
            body: .stream { writer in
                defer {
                    export.close()
                    withExtendedLifetime(slot) {}  // held as long as this closure lives
                }
                writer.limitDuration(to: max(.zero, opened + timeout - ContinuousClock.now))
                do {
                    try writeDocument(export, publicURL: publicURL, to: writer)
                } catch let error as StreamDeadlineExceeded {
                    // No user id: a warning reaches logs kept at `warning` to hold no personal data
                    // (docs/operations.md); the request id leads to the request.
                    logger.warning(
                        "the export was not sent within --export-timeout; it ends unterminated",
                        metadata: ["export-timeout": .stringConvertible(timeout)])
                    throw error
                } catch let error as SocketError {
                    throw error  // the client left or stopped reading: the engine logs and resets
                } catch {
                    logger.error(
                        "the export failed after its head was sent; the response ends unterminated",
                        metadata: ["error": .string(String(reflecting: error))])
                    throw error
                }
            })
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
