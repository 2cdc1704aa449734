import Dispatch
import Logging

extension HTTPConnection {
    /// Runs the responder for one complete request and queues its response: inline on the
    /// loop when the responder says the request is quick (`HTTPExecution.eventLoop`), else on
    /// a worker thread. Until the response is back the loop serves none of the connection's
    /// events; its registration stays as it is, and the first event that comes meanwhile takes
    /// it out of the epoll set (`EventLoop.serveBatch`). A client that waits for its answer
    /// sends nothing, so a deferred write costs no `epoll_ctl` at all, where taking it out and
    /// back in cost two.
    func respond(to request: HTTPRequest) {
        let requestId = makeRequestId()
        var context = RequestContext(requestId: requestId, origin: contextOrigin)
        context.connection = storage
        let responder = environment.responder
        if responder.prepare(request.head, context: &context) == .eventLoop {
            context.worker = environment.submitToWorker  // for a handler that must wait after all
            let response = Self.run(responder, request: request, context: context)
            if let deferred = response.deferred {
                guard sendQueuedAnswers() else { return }
                machine.offloaded()
                handOutput(toWorker: true)
                waitFor(deferred, head: request.head, context: context)
                return
            }
            finish(request.head, with: response, context: context)
            return
        }
        guard sendQueuedAnswers() else { return }
        machine.offloaded()
        handOutput(toWorker: true)
        environment.workers.submit { [self, context] in
            // Touches no connection state: the loop still owns it.
            let response = Self.run(responder, request: request, context: context)
            if let deferred = response.deferred {
                waitFor(deferred, head: request.head, context: context)
                return
            }
            loop.execute { [self] in
                resume(request.head, with: response, context: context)
            }
        }
    }

    /// Waits, without a thread, for a deferred response, then hands it to the loop like a
    /// worker's. The connection is offloaded meanwhile (its events not served, output held).
    private func waitFor(_ deferred: HTTPDeferredResponse, head: HTTPRequestHead, context: RequestContext) {
        deferred.whenComplete { [self] outcome in
            let response: HTTPResponse
            switch outcome {
            case .success(let final) where final.deferred == nil: response = final
            case .success:
                response = ProblemJSON.unhandled(
                    HTTPDeferredResponse.Nested(), where: "a deferred response completed with another", context: context)
            case .failure(let error as HTTPError): response = ProblemJSON.response(for: error, requestId: context.requestId)
            case .failure(let error):
                response = ProblemJSON.unhandled(error, where: "unhandled error from a deferred response", context: context)
            }
            loop.execute { [self] in
                resume(head, with: response, context: context)
            }
        }
    }

    /// On the loop, once an offloaded request's response is back: take the output back, send
    /// the response (or close, when the connection was closed meanwhile) and read on.
    private func resume(_ head: HTTPRequestHead, with response: HTTPResponse, context: RequestContext) {
        handOutput(toWorker: false)
        if machine.workerFinished() == .close {
            closeNow()
            return
        }
        finish(head, with: response, context: context)
        if machine.isOffloaded { return }  // a streamed body took over
        updateInterest()
        processInput()
    }

    /// The responder's answer, with thrown errors turned into problem+json.
    private static func run(_ responder: any HTTPResponder, request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        do {
            return try responder.respond(to: request, context: context)
        } catch let error as HTTPError {
            // Without an ErrorMiddleware the engine still honours HTTPError (e.g. the router's 404).
            return ProblemJSON.response(for: error, requestId: context.requestId)
        } catch {
            return ProblemJSON.unhandled(error, where: "unhandled error from responder", context: context)
        }
    }

    /// Queues the response. Keep-alive follows RFC 9112 §9.3: the request's wish, the
    /// per-connection cap, shutdown, and a handler's own `Connection: close`. A streamed body
    /// moves to a worker thread.
    private func finish(_ head: HTTPRequestHead, with response: HTTPResponse, context: RequestContext) {
        // Only a final status answers a request (RFC 9110 §15): a handler's 1xx (the engine
        // sends `100 Continue` itself) or a code out of range is the server's failure. (Answered
        // by a call of its own: rebinding `response` would copy every response.)
        guard HTTPStatus.finalCodes.contains(response.status.code) else {
            let failure = ProblemJSON.unhandled(
                HTTPStatus.NotFinal(code: response.status.code), where: "a handler's response has no final status",
                context: context)
            return finish(head, with: failure, context: context)
        }
        var keepAlive = machine.mayKeepAlive(
            requestWantsIt: head.keepAlive, serverShuttingDown: server.isShuttingDown,
            responseSaysClose: response.headers["Connection"]?.lowercased().contains("close") ?? false)
        // A close-delimited stream (HTTP/1.0) clears `keepAlive`, a HEAD to one too: its head
        // said `Connection: close`.
        let action = writer.write(
            response, isHead: head.method == .head, version: head.version, keepAlive: &keepAlive, into: &output)
        if case .stream(let produce, let chunked) = action {
            precondition(chunked || !keepAlive, "a close-delimited body on a connection kept alive")
            // The request logger is built only here: reading it costs a metadata copy.
            startStream(produce, chunked: chunked, keepAlive: keepAlive, logger: context.logger)
            return
        }
        machine.responseQueued(keepAlive: keepAlive)
    }

    /// Runs the stream closure on a worker thread, where it may block on a slow client (up to
    /// `writeTimeout`); the worker owns `output` and the socket's send side meanwhile. The
    /// loop gets the connection back when the closure returns.
    private func startStream(
        _ produce: @escaping @Sendable (any HTTPBodyWriter) throws -> Void, chunked: Bool, keepAlive: Bool,
        logger: Logger
    ) {
        machine.streamStarted()
        handOutput(toWorker: true)
        updateInterest()
        updateDeadline()
        environment.workers.submit { [self] in
            let completed = stream(produce, chunked: chunked, logger: logger)
            loop.execute { [self] in
                handOutput(toWorker: false)
                switch machine.streamEnded(completed: completed, keepAlive: keepAlive, inputIsEmpty: input.isEmpty) {
                case .close(let abort):
                    closeNow(abort: abort)
                case .resume:
                    updateInterest()
                    processInput()
                }
            }
        }
    }

    /// Sends what the socket takes of what is buffered (the head and any earlier pipelined
    /// responses), then runs the stream closure. Each write is one chunk; buffered output past
    /// `maxBufferedOutputBytes` blocks the writer until the socket drains, or until
    /// `writeTimeout` passes without progress or the closure's time limit passes, when the
    /// writer throws.
    /// - Returns: false when the stream failed; the connection must then be reset.
    private func stream(
        _ produce: @Sendable (any HTTPBodyWriter) throws -> Void, chunked: Bool, logger: Logger
    ) -> Bool {
        let bodyWriter = StreamBodyWriter(connection: self, chunked: chunked)
        defer { bodyWriter.finished = true }
        assertWorkerOwnsOutput()
        do {
            // The head (and earlier pipelined answers) go as far as the socket takes them now;
            // the rest is sent by the stream's writes, under its limits (the write timeout, and
            // the time limit the closure may set first thing).
            try sendAvailable()
            try produce(bodyWriter)
            // A closure that caught its writer's deadline error has an unfinished body.
            if bodyWriter.ranPastDeadline { return false }
            if chunked { output.append(contentsOf: StreamBodyWriter.lastChunk) }
            return true
        } catch {
            // The head is gone; the only honest signal left is an unterminated body (RFC 9112 §8).
            logger.debug("streamed response ended early", metadata: ["error": .string("\(error)")])
            return false
        }
    }

    /// Answers a request the engine refuses (parse error, limit, timeout, address share) with
    /// the configuration's rendering of it (``HTTPServerConfiguration/refusalRenderer``) and
    /// `Connection: close`, without content when the request was `HEAD` (RFC 9110 §9.3.2); the
    /// write side then closes and input drains (RFC 9112 §9.6).
    /// - Parameters:
    ///   - status: the error status.
    ///   - detail: the problem's explanation.
    ///   - head: the request's head when it was parsed; else the method is read from what
    ///     was buffered of the refused head, when its request line got that far.
    ///   - headers: extra fields, e.g. `Retry-After`.
    func reject(_ status: HTTPStatus, detail: String, head: HTTPRequestHead? = nil, headers: HTTPHeaders = HTTPHeaders()) {
        let method = head?.method ?? HTTPRequestParser.method(ofRefusedHead: input.readable)
        let path = head == nil ? HTTPRequestParser.path(ofRefusedHead: input.readable) : nil
        let refusal = HTTPRefusal(
            status: status, detail: detail, headers: headers, head: head, method: method, path: path,
            requestId: makeRequestId(unparsed: head == nil))
        let response = environment.configuration.refusalRenderer(refusal)
        // The id the answer carries, when the renderer chose one (the caller's, say).
        let requestId = response.headers[RequestIdMiddleware.headerName] ?? refusal.requestId
        environment.logger.debug(
            "rejected request",
            metadata: ["peer": .string(peer), "status": .stringConvertible(status.code), "request-id": .string(requestId)])
        var keepAlive = false
        _ = writer.write(response, isHead: method == .head, version: .http1_1, keepAlive: &keepAlive, into: &output)
        input.clear()
        bodyHead = nil
        bodyDecoder = nil
        body = []
        if machine.rejected() { flushOutput() }
    }

    /// "<server prefix>-<connection>-<request>", unique per server run and cheap to build
    /// (the first two parts are built once per connection).
    func makeRequestId(unparsed: Bool = false) -> String {
        // The stem, then the request count in base 36, written in place (no intermediate strings).
        var stem = requestIdStem
        return stem.withUTF8 { stem in
            String(unsafeUninitializedCapacity: stem.count + 13) { buffer in
                var count = stem.count
                if let source = stem.baseAddress, count > 0 { buffer.baseAddress!.update(from: source, count: count) }
                // A head refused before it was whole never counted as a request: it is the next.
                var value = UInt64(machine.requestCount + (unparsed ? 1 : 0))
                let start = count
                repeat {
                    let digit = UInt8(value % 36)
                    buffer[count] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    value /= 36
                    count += 1
                } while value > 0
                buffer[start..<count].reverse()
                return count
            }
        }
    }
}
