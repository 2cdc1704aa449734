import Logging

extension HTTPConnection {
    /// Runs the responder for one complete request and queues its response.
    /// Keep-alive follows RFC 9112 §9.3: the request's wish, the per-connection cap, shutdown,
    /// and a handler's own `Connection: close`.
    func respond(to request: HTTPRequest) {
        phase = .responding
        let requestId = makeRequestId()
        let context = RequestContext(requestId: requestId, logger: environment.logger, remoteAddress: peer)
        let response: HTTPResponse
        do {
            response = try environment.responder.respond(to: request, context: context)
        } catch let error as HTTPError {
            // Without an ErrorMiddleware the engine still honours HTTPError (e.g. the router's 404).
            response = ProblemJSON.response(for: error, requestId: requestId)
        } catch {
            context.logger.error("unhandled error from responder", metadata: ["error": .string(String(reflecting: error))])
            response = ProblemJSON.response(
                status: .internalServerError, detail: "The server failed to handle the request.", requestId: requestId)
        }
        let head = request.head
        var keepAlive =
            head.keepAlive && requestCount < environment.configuration.maxRequestsPerConnection
            && !shuttingDown && !server.isShuttingDown
        if keepAlive, let field = response.headers["Connection"], field.lowercased().contains("close") {
            keepAlive = false
        }
        let action = writer.write(
            response, isHead: head.method == .head, version: head.version, keepAlive: keepAlive, into: &output)
        if case .stream(let produce, let chunked) = action {
            if !chunked { keepAlive = false }
            guard stream(produce, chunked: chunked, logger: context.logger) else { return }
        }
        phase = keepAlive ? .awaitingHead : .closing
    }

    /// Sends the head now, then runs the stream closure on this queue. Each write is one chunk;
    /// buffered output past `maxBufferedOutputBytes` blocks the writer until the socket drains
    /// or `writeTimeout` passes without progress, when the writer throws.
    /// - Returns: false when the stream failed and the connection was closed.
    private func stream(
        _ produce: @Sendable (any HTTPBodyWriter) throws -> Void, chunked: Bool, logger: Logger
    ) -> Bool {
        let bodyWriter = StreamBodyWriter(connection: self, chunked: chunked)
        defer { bodyWriter.finished = true }
        do {
            try flushBlocking(threshold: 0)
            try produce(bodyWriter)
            if chunked { output.append(contentsOf: StreamBodyWriter.lastChunk) }
            return true
        } catch {
            // The head is gone; the only honest signal left is an unterminated body (RFC 9112 §8).
            logger.debug("streamed response ended early", metadata: ["error": .string("\(error)")])
            closeNow(abort: true)
            return false
        }
    }

    /// Answers a request the engine refuses (parse error, limit, timeout) with a short
    /// problem+json and `Connection: close`; the write side then closes and input drains
    /// (RFC 9112 §9.6).
    func reject(_ status: HTTPStatus, detail: String) {
        let requestId = makeRequestId()
        environment.logger.debug(
            "rejected request",
            metadata: ["peer": .string(peer), "status": .stringConvertible(status.code), "request-id": .string(requestId)])
        let response = ProblemJSON.response(status: status, detail: detail, requestId: requestId)
        _ = writer.write(response, isHead: false, version: .http1_1, keepAlive: false, into: &output)
        input.clear()
        bodyHead = nil
        bodyDecoder = nil
        body = []
        headStartedAt = 0
        phase = .closing
        if !writeArmed { flushOutput() }
    }

    /// "<server prefix>-<connection>-<request>", unique per server run and cheap to build.
    func makeRequestId() -> String {
        environment.requestIdPrefix + "-" + String(id, radix: 36) + "-" + String(requestCount, radix: 36)
    }
}
