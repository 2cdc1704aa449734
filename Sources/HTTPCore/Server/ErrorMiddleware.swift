import Logging

/// The one place where thrown errors become `application/problem+json` (RFC 9457): an
/// `HTTPError` keeps its status, type, title, detail, headers and extensions; an
/// `HTTPParseError` its status and detail; anything else a generic 500, logged with the
/// request id. An optional mapper lets the application translate its own error types first.
public struct ErrorMiddleware: HTTPMiddleware {
    public typealias Mapper = @Sendable (any Error, RequestContext) -> HTTPError?

    private let mapper: Mapper?

    /// - Parameter mapper: turns an application error into an `HTTPError`, or returns nil to
    ///   fall through to the built-in rules.
    public init(mapper: Mapper? = nil) {
        self.mapper = mapper
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try next.respond(to: request, context: context)
        } catch {
            return problem(for: error, context: context)
        }
        if let deferred = response.deferred {
            // A failure of the response to come becomes its problem, as a thrown one does.
            deferred.transform { [self] outcome in
                guard case .failure(let error) = outcome else { return outcome }
                return .success(problem(for: error, context: context))
            }
        }
        return response
    }

    /// The problem response for `error`.
    public func problem(for error: any Error, context: RequestContext) -> HTTPResponse {
        if let mapped = mapper?(error, context) {
            return ProblemJSON.response(for: mapped, requestId: context.requestId)
        }
        switch error {
        case let error as HTTPError:
            return ProblemJSON.response(for: error, requestId: context.requestId)
        case let error as HTTPParseError:
            return ProblemJSON.response(status: error.status, detail: error.detail, requestId: context.requestId)
        default:
            return ProblemJSON.unhandled(error, where: "unhandled error", context: context)
        }
    }
}
