import Logging

/// The one place where thrown errors become `application/problem+json` (RFC 9457): an
/// `HTTPError` keeps its status, type, title, detail, headers and extensions; an
/// `HTTPParseError` its status and detail; anything else a generic 500, logged with the
/// request id, as is a handler's response whose status is not final (a 1xx, a code past 599). An optional mapper lets the application translate its own error types first.
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
                switch outcome {
                case .failure(let error): .success(problem(for: error, context: context))
                case .success(let final): .success(finalOrProblem(final, context: context))
                }
            }
            return response
        }
        return finalOrProblem(response, context: context)
    }

    /// `response`, or a 500 when its status cannot end a request (``HTTPStatus/NotFinal``): the
    /// engine would refuse it too, without this request's id.
    private func finalOrProblem(_ response: HTTPResponse, context: RequestContext) -> HTTPResponse {
        guard response.deferred == nil, !HTTPStatus.finalCodes.contains(response.status.code) else { return response }
        return problem(for: HTTPStatus.NotFinal(code: response.status.code), context: context)
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
