public import Logging

/// One log line per request through swift-log: method, path, status, body bytes, duration and
/// (through the context logger's metadata) the request id. Put it outside `ErrorMiddleware`
/// so error responses are logged with their real status.
public struct AccessLogMiddleware: HTTPMiddleware {
    /// The level of access lines; `.info` by default.
    public var level: Logger.Level

    public init(level: Logger.Level = .info) {
        self.level = level
    }

    public func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        guard context.logLevel <= level else { return try next.respond(to: request, context: context) }
        let logger = context.logger
        let started = MonotonicClock.now()
        let response: HTTPResponse
        do {
            response = try next.respond(to: request, context: context)
        } catch {
            log(request, status: 500, bytes: "-", started: started, logger: logger)
            throw error
        }
        if let deferred = response.deferred {
            deferred.transform { [self] outcome in
                switch outcome {
                case .success(let final): log(request, final, started: started, logger: logger)
                case .failure: log(request, status: 500, bytes: "-", started: started, logger: logger)
                }
                return outcome
            }
            return response
        }
        log(request, response, started: started, logger: logger)
        return response
    }

    private func log(_ request: HTTPRequest, _ response: HTTPResponse, started: UInt64, logger: Logger) {
        let bytes: String
        switch response.body {
        case .bytes(let body): bytes = String(body.count)
        case .stream, .deferred: bytes = "-"
        }
        log(request, status: response.status.code, bytes: bytes, started: started, logger: logger)
    }

    private func log(_ request: HTTPRequest, status: Int, bytes: String, started: UInt64, logger: Logger) {
        let micros = (MonotonicClock.now() - started) / 1000
        logger.log(
            level: level, "\(request.method.rawValue) \(request.path) \(status)",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.path),
                "status": .stringConvertible(status), "bytes": .string(bytes),
                "duration_us": .stringConvertible(micros),
            ])
    }
}
