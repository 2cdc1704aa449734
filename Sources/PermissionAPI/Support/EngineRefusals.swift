import HTTPCore

/// The answers the HTTP engine gives itself, before routing (``HTTPRefusal``), made like the
/// API's other problems (RFC 9457): the stable problem type of the status, and the request id
/// in the `X-Request-Id` field and the body's `requestId`. That id is the caller's
/// `X-Request-Id` when the head was parsed and the id passes the check every request's does
/// (``RequestIdMiddleware/isSane(_:)``), else the one the engine made; a refused head has no
/// caller's id to echo. A refused request to a consent page is answered with a page and the
/// pages' security headers instead (``ConsentPageError/refused(_:)``), in the request's language
/// when its head was read: a browser shows it. A head refused whole (too large, malformed) is
/// known for a consent page by the path its request line began with. Installed into the engine by `main` (`APIConfiguration.refusalRenderer`).
enum EngineRefusals {
    /// The response for `refusal`.
    static func response(for refusal: HTTPRefusal) -> HTTPResponse {
        let requestId =
            refusal.head?.headers[RequestIdMiddleware.headerName].flatMap { RequestIdMiddleware.isSane($0) ? $0 : nil }
            ?? refusal.requestId
        var headers = refusal.headers
        headers.replaceOrAdd(name: RequestIdMiddleware.headerName, value: requestId)
        if let path = refusal.path, ConsentSecurityHeaders.covers(path) {
            // A refused head's fields are unread: the page is then in the default language.
            let language = refusal.head.map { ConsentLanguage.of($0.headers) } ?? ConsentLanguage.of(HTTPHeaders())
            var page = ConsentPageError.refused(refusal.status).page(language).response
            for (name, value) in headers.fields { page.headers.replaceOrAdd(name: name, value: value) }
            for (name, value) in ConsentSecurityHeaders.fields { page.headers.replaceOrAdd(name: name, value: value) }
            return page
        }
        guard let type = problemType(for: refusal.status) else {
            // Not a status the engine refuses with today; the engine's own rendering, with the id.
            return ProblemJSON.response(
                status: refusal.status, detail: refusal.detail, requestId: requestId, headers: headers)
        }
        return ProblemJSON.response(
            status: refusal.status, type: type.uri, title: type.title, detail: refusal.detail, requestId: requestId,
            headers: headers)
    }

    /// The problem type of each status the engine refuses with.
    static func problemType(for status: HTTPStatus) -> Wire.ProblemType? {
        switch status.code {
        case 400: .invalidRequest
        case 408: .requestTimeout
        case 413: .payloadTooLarge
        case 414: .uriTooLong
        case 417: .expectationFailed
        case 429: .tooManyRequests
        case 431: .headerFieldsTooLarge
        case 501: .notImplemented
        case 505: .versionNotSupported
        default: nil
        }
    }
}
