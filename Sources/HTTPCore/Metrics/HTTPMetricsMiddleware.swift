/// Counts each request and its latency in an `HTTPMetrics`, labelled with the route template
/// the router matched before the chain ran (`RequestContext.route`; "unmatched" for the 400,
/// 404 and 405 misses) and the final status. Put it outside
/// `ErrorMiddleware` so thrown errors count with their mapped status; an error that escapes
/// counts as 500. A streamed response counts when its head is ready, not when the stream ends.
public struct HTTPMetricsMiddleware: HTTPMiddleware {
    /// The route label of requests no route matched.
    public static let unmatchedRoute = "unmatched"

    let metrics: HTTPMetrics

    public init(metrics: HTTPMetrics) {
        self.metrics = metrics
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        let started = MonotonicClock.now()
        let response: HTTPResponse
        do {
            response = try next.respond(to: request, context: context)
        } catch let error as HTTPError {
            record(request, context, status: error.status.code, started: started)
            throw error
        } catch {
            record(request, context, status: 500, started: started)
            throw error
        }
        if let deferred = response.deferred {
            deferred.transform { [self] outcome in
                switch outcome {
                case .success(let final): record(request, context, status: final.status.code, started: started)
                case .failure(let error as HTTPError): record(request, context, status: error.status.code, started: started)
                case .failure: record(request, context, status: 500, started: started)
                }
                return outcome
            }
            return response
        }
        record(request, context, status: response.status.code, started: started)
        return response
    }

    private func record(_ request: HTTPRequest, _ context: RequestContext, status: Int, started: UInt64) {
        let route = context.route ?? Self.unmatchedRoute
        let method = Self.isKnown(request.method) ? request.method : HTTPMethod("OTHER")
        metrics.record(route: route, method: method, status: status, nanoseconds: MonotonicClock.now() &- started)
    }

    /// Methods labelled as themselves; any other token counts as "OTHER", so that clients
    /// cannot grow the series without bound.
    static func isKnown(_ method: HTTPMethod) -> Bool {
        switch method.rawValue {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS": true
        default: false
        }
    }
}
