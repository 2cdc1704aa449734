import HTTPCore
import Logging
import PermissionDomain

/// The one place errors become problems (STYLE convention 8, RFC 9457): the domain's
/// `PermissionError`, the wire's `WireDecodingError`, the API's own `APIProblem` and the
/// router's `HTTPError`s each get a stable problem type and status; anything else is a
/// generic 500 `internal`, logged with the request id and never described to the client.
enum ErrorMapping {
    /// The `HTTPError` that `ErrorMiddleware` renders for `error`.
    /// - Parameters:
    ///   - error: what a handler (or the router) threw.
    ///   - context: the request's context; its logger carries the request id.
    static func httpError(for error: any Error, context: RequestContext) -> HTTPError {
        switch error {
        case let problem as APIProblem:
            return make(problem.type, problem.detail, extensions: problem.extensions, headers: problem.headers)
        case let error as PermissionError:
            return map(error, context: context)
        case let error as Wire.WireDecodingError:
            return make(error.problemType, error.description)
        case let error as HTTPError:
            return typed(error)
        case let error as HTTPParseError:
            return make(error.status.code == 413 ? .payloadTooLarge : .invalidRequest, error.detail)
        default:
            context.logger.error("request failed", metadata: ["error": .string(String(reflecting: error))])
            return make(.internalError, "The server failed to handle the request (request id \(context.requestId)).")
        }
    }

    /// The problem for each domain refusal.
    private static func map(_ error: PermissionError, context: RequestContext) -> HTTPError {
        switch error {
        case .invalidArgument(let field, let why):
            return make(.invalidRequest, "\(field): \(why)")
        case .invalidCombination(let field, let why):
            return make(.invalidCombination, "\(field): \(why)")
        case .notFound(let what):
            return make(.notFound, "There is no \(what).")
        case .unknownService(let id):
            return make(.unknownService, "There is no service '\(id)' in the catalogue.")
        case .unknownLevel(let level, let service, let allowed):
            return make(
                .unknownLevel, "The service '\(service)' has no level '\(level)'.",
                extensions: [("allowed", jsonArray(allowed.map(\.rawValue)))])
        case .missingPurposeString(let key):
            context.logger.notice("request refused: missing purpose string", metadata: ["key": .string(key)])
            return make(
                .missingPurposeString, "The app has no purpose string for \(key), which this level needs.",
                extensions: [("key", ProblemJSON.quoted(key))])
        case .restrictedByPolicy:
            return make(.restricted, "The authorization is restricted by a policy.")
        case .grantedByPolicy:
            return make(
                .conflict,
                "The authorization is granted by an allow policy (a pre-approval), so it is managed: change or delete the policy instead."
            )
        case .conflict(let why):
            return make(.conflict, capitalized(why) + ".")
        case .levelInUse(let service, let level, let authorizations, let pendingPrompts, let policies):
            var holders: [String] = []
            if authorizations > 0 {
                holders.append(authorizations == 1 ? "1 authorization holds" : "\(authorizations) authorizations hold")
            }
            if pendingPrompts > 0 {
                holders.append(pendingPrompts == 1 ? "1 pending prompt asks for" : "\(pendingPrompts) pending prompts ask for")
            }
            if policies > 0 {
                holders.append(policies == 1 ? "1 allow policy grants" : "\(policies) allow policies grant")
            }
            return make(
                .levelInUse,
                "The new definition of '\(service)' drops the level '\(level)', which "
                    + holders.joined(separator: " and ")
                    + "; reset those authorizations (POST /v1/reset, which also cancels their prompts) or set them "
                    + "to a level the service keeps, change or delete those policies, then define it again. "
                    + "Nothing was changed.",
                extensions: [
                    ("level", ProblemJSON.quoted(level.rawValue)), ("authorizations", String(authorizations)),
                    ("pendingPrompts", String(pendingPrompts)), ("policies", String(policies)),
                ])
        case .preconditionFailed(let current):
            return make(
                .preconditionFailed, "The If-Match or If-None-Match condition does not hold for the current representation.",
                headers: ["ETag": current])
        case .existenceConditionFailed(let what, let exists):
            return make(
                .preconditionFailed,
                exists
                    ? "If-None-Match: * asks to create \(what) only if it does not exist, and it does; nothing was changed."
                    : "If-Match: * asks to change \(what) only if it exists, and it does not; nothing was changed.")
        case .promptNotPending(let state):
            return make(
                .promptNotPending, "The prompt is \(state.rawValue), no longer pending.",
                extensions: [("state", ProblemJSON.quoted(state.rawValue))])
        case .invalidChoice(let choice, let allowed):
            return make(
                .invalidChoice, "The prompt does not offer the choice '\(choice)'.",
                extensions: [("allowed", jsonArray(allowed.map(\.rawValue)))])
        case .tooManyPrompts(let limit, let pending, let retryAfter):
            let named = pending.map {
                "{\"id\":" + ProblemJSON.quoted($0.id.rawValue) + ",\"service\":" + ProblemJSON.quoted($0.service.rawValue) + "}"
            }
            return make(
                .tooManyPrompts,
                "The app already has \(pending.count) pending prompts for this user, the most it may have (\(limit)); "
                    + "wait for an answer or for one to expire.",
                extensions: [("limit", String(limit)), ("pending", "[" + named.joined(separator: ",") + "]")],
                headers: ["Retry-After": String(retryAfter)])
        case .unavailable(let why, let cause):
            logUnavailable(why: why, cause: cause, context.logger)
            // Not "retry": the change may have been made.
            if PermissionError.mayHaveChanged(why) { return make(.unavailable, capitalized(why) + ".") }
            return make(.unavailable, capitalized(why) + "; retry shortly.", headers: ["Retry-After": "1"])
        }
    }

    /// The warning of a request refused with ``PermissionError/unavailable(why:cause:)``, an API
    /// call's or a consent page's: `cause` goes to the log alone (it may name the database's
    /// host).
    static func logUnavailable(why: String, cause: String?, _ logger: Logger) {
        var metadata: Logger.Metadata = ["why": .string(why)]
        if let cause { metadata["cause"] = .string(cause) }
        logger.warning("request refused: store unavailable", metadata: metadata)
    }

    /// An `HTTPError` of the engine or router keeps its status, headers and detail, and gets
    /// the API's problem type for that status when it has none.
    private static func typed(_ error: HTTPError) -> HTTPError {
        guard error.type == "about:blank" else { return error }
        let type: Wire.ProblemType? =
            switch error.status.code {
            case 400: .invalidRequest
            case 404: .notFound
            case 405: .methodNotAllowed
            case 413: .payloadTooLarge
            case 415: .unsupportedMediaType
            case 501: .notImplemented
            case 503: .unavailable
            default: nil
            }
        guard let type else { return error }
        return make(type, error.detail ?? error.status.reason, extensions: error.extensions, headers: error.headers)
    }

    static func make(
        _ type: Wire.ProblemType, _ detail: String, extensions: [(String, String)] = [],
        headers: HTTPHeaders = HTTPHeaders()
    ) -> HTTPError {
        HTTPError(
            HTTPStatus(code: type.status), type: type.uri, title: type.title, detail: detail, headers: headers,
            extensions: extensions)
    }

    /// A JSON array of strings.
    static func jsonArray(_ values: [String]) -> String {
        "[" + values.map(ProblemJSON.quoted).joined(separator: ",") + "]"
    }

    private static func capitalized(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }
}
