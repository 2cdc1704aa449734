import Foundation
import PermissionWire

/// The client SDK of the permission service, on libcurl.
///
/// ```swift
/// let client = try PermissionClient(baseURL: "http://127.0.0.1:8080", apiKey: key)
/// switch try await client.status(user: "u42", app: "com.example.maps", service: "location") {
/// case .authorized(let level): serveNearbyStops(precise: level == "always")
/// case .notDetermined, .denied, .restricted: serveWithoutLocation()
/// }
/// ```
///
/// **Thread safety.** A client is `Sendable`: one instance may be used from any number of tasks
/// and threads at once. Each call takes a libcurl easy handle of its own from a lock-guarded
/// pool (a handle is never used by two threads at once) and returns it with its kept-alive
/// connection, so that consecutive calls reuse connections.
///
/// **Forms.** Every operation is an `Endpoint` (see `Endpoints`); `send(_:)` performs it
/// asynchronously (cancellable), `sendBlocking(_:)` on the calling thread. An async call blocks
/// one of the client's call threads (``CallThreads``), at most `Configuration.maxCallThreads`
/// of them: it starts at once on an idle or a new one, and when all are busy it waits its turn
/// in a FIFO queue of at most `maxQueuedCalls`, the wait counting toward its `timeout` (see
/// `Configuration.maxCallThreads`). The change feed (`events`) has a thread of its own.
/// The typed methods (`status`, `authorization`, `requestAccess`, ...) are the async form.
/// `download(_:into:)` and `download(_:toFileDescriptor:)` stream a body of any size (a user's
/// export) to the caller's sink instead of holding it (a buffered call holds at most 16 MiB).
///
/// **Errors.** Every failure is a `PermissionClientError`. Retries follow `RetryPolicy`.
public final class PermissionClient: Sendable {
    public let configuration: Configuration
    private let baseURL: String
    private let pool: HandlePool
    private let fixedFields: [String]
    /// The threads the async calls run on.
    package let callThreads: CallThreads

    /// Creates a client; no connection is made until the first call.
    /// - Parameter configuration: where and how to connect.
    /// - Throws: `.invalidArgument` for a URL that is not `http(s)://...` or that libcurl cannot
    ///   parse (a port that is not a number), or a call thread cap or queue length out of range.
    public convenience init(configuration: Configuration) throws(PermissionClientError) {
        try self.init(configuration: configuration, callThreadIdleLifetime: .seconds(10))
    }

    /// Creates a client whose idle call threads end after `callThreadIdleLifetime` (tests).
    package init(configuration: Configuration, callThreadIdleLifetime: Duration) throws(PermissionClientError) {
        self.configuration = configuration
        baseURL = try configuration.normalizedBaseURL()
        try configuration.validateCallThreads()
        if let apiKey = configuration.apiKey, !Self.isFieldValue(apiKey) {
            throw .invalidArgument("the API key holds a CR, LF or NUL, which would end its header line")
        }
        guard Self.isFieldValue(configuration.userAgent) else {
            throw .invalidArgument("the user agent holds a CR, LF or NUL, which would end its header line")
        }
        fixedFields = configuration.apiKey.map { ["Authorization: Bearer " + $0] } ?? []
        pool = HandlePool(
            settings: EasyHandle.Settings(
                connectTimeoutMilliseconds: configuration.connectTimeout.roundedUpMilliseconds,
                userAgent: configuration.userAgent, verifyTLS: configuration.verifyTLS, caFile: configuration.caFile,
                pinnedPublicKey: configuration.pinnedPublicKey, proxy: configuration.proxy),
            maxIdle: configuration.maxIdleHandles ?? configuration.maxCallThreads)
        callThreads = CallThreads(
            maxThreads: configuration.maxCallThreads, maxWaiting: configuration.maxQueuedCalls,
            idleLifetime: callThreadIdleLifetime)
    }

    /// Creates a client with default timeouts and retries.
    /// - Parameters:
    ///   - baseURL: the server, e.g. `http://127.0.0.1:8080`.
    ///   - apiKey: the bearer key, if any.
    public convenience init(baseURL: String, apiKey: String? = nil) throws(PermissionClientError) {
        try self.init(configuration: Configuration(baseURL: baseURL, apiKey: apiKey))
    }

    /// Performs `endpoint` without blocking the caller; cancelling the task aborts the call.
    /// - Parameters:
    ///   - endpoint: the operation.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    /// - Returns: the decoded value with the status, request id and `ETag`.
    public func send<Value>(
        _ endpoint: Endpoint<Value>, requestId: String? = nil
    ) async throws(PermissionClientError)
        -> PermissionResponse<Value>
    {
        // Prepared before it takes a thread: a bad argument fails at once, not after its turn.
        let prepared = try Self.prepare(endpoint, requestId: requestId).get()
        return try await onCallThread { cancel, admission in
            self.run(prepared, endpoint, cancel: cancel, admission: admission)
        }.get()
    }

    /// Runs `body` on one of the client's call threads (``CallThreads``) and waits for it
    /// without blocking; cancelling the task sets the flag `body` is given, or withdraws the
    /// call from the queue. A call that gets no thread (its `timeout` passed or its task was
    /// cancelled while it waited, or the queue was full) still reaches `body`, with the refusal
    /// in its admission (on the caller's thread or a Dispatch thread), so that it is reported
    /// like any call.
    func onCallThread<T: Sendable>(
        _ body: @escaping @Sendable (CancellationFlag, CallThreads.Admission) -> Result<T, PermissionClientError>
    ) async -> Result<T, PermissionClientError> {
        let cancel = CancellationFlag()
        let calledAt = ContinuousClock.now
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PermissionClientError>, Never>) in
                callThreads.submit(calledAt: calledAt, budget: configuration.timeout, cancel: cancel) { admission in
                    continuation.resume(returning: body(cancel, admission))
                }
            }
        } onCancel: {
            cancel.cancel()
        }
    }

    /// Performs `endpoint` on the calling thread.
    /// - Parameters:
    ///   - endpoint: the operation.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    /// - Returns: the decoded value with the status, request id and `ETag`.
    public func sendBlocking<Value>(
        _ endpoint: Endpoint<Value>, requestId: String? = nil
    ) throws(PermissionClientError)
        -> PermissionResponse<Value>
    {
        try run(Self.prepare(endpoint, requestId: requestId).get(), endpoint, cancel: nil).get()
    }

    /// - Parameters:
    ///   - prepared: `endpoint`'s exchange and request id (``prepare(_:requestId:)``).
    ///   - admission: how an async call met the call threads; `nil` for the blocking form.
    private func run<Value>(
        _ prepared: PreparedCall, _ endpoint: Endpoint<Value>, cancel: CancellationFlag?,
        admission: CallThreads.Admission? = nil
    )
        -> Result<PermissionResponse<Value>, PermissionClientError>
    {
        if let refused: Result<PermissionResponse<Value>, PermissionClientError> = refused(prepared, admission) {
            return refused
        }
        let started = admission?.calledAt ?? ContinuousClock.now
        let waited = admission?.waited ?? .zero
        let (id, call) = (prepared.requestId, prepared.call)
        // The wait for a thread counts toward the first attempt's timeout.
        let (result, attempts) = execute(
            call, requestId: id, cancel: cancel, retry: configuration.retry,
            timeoutMilliseconds: max(1, configuration.timeout.roundedUpMilliseconds),
            firstTimeoutMilliseconds: max(1, (configuration.timeout - waited).roundedUpMilliseconds))
        let outcome = result.flatMap { raw in Self.interpret(raw, endpoint: endpoint, sentId: id, attempts: attempts) }
        report(outcome, of: call, requestId: id, attempts: attempts, started: started, queueWait: waited)
        return outcome
    }

    /// The failure of a call that got no call thread (its admission's refusal: its timeout passed
    /// or its task was cancelled while it waited, or the queue was full), reported like any
    /// call; nil for one that runs.
    func refused<Value>(
        _ prepared: PreparedCall, _ admission: CallThreads.Admission?
    ) -> Result<PermissionResponse<Value>, PermissionClientError>? {
        guard let admission, let refusal = admission.refusal else { return nil }
        let outcome = Result<PermissionResponse<Value>, PermissionClientError>.failure(
            refusal.withRequestId(prepared.requestId))
        report(
            outcome, of: prepared.call, requestId: prepared.requestId, attempts: 0, started: admission.calledAt,
            queueWait: admission.waited)
        return outcome
    }

    /// A call ready to be sent: its exchange and the request id it goes with.
    struct PreparedCall: Sendable {
        let requestId: String
        let call: HTTPCall
    }

    /// The exchange for `endpoint` with `requestId` (a new one when `nil`), or `.invalidArgument`
    /// for a header value or request id that would end its line early, or a body that cannot be
    /// encoded.
    static func prepare<Value>(_ endpoint: Endpoint<Value>, requestId: String?) -> Result<PreparedCall, PermissionClientError> {
        let id = requestId ?? makeRequestId()
        return exchange(endpoint, requestId: id).map { PreparedCall(requestId: id, call: $0) }
    }

    private static func exchange<Value>(
        _ endpoint: Endpoint<Value>, requestId id: String
    ) -> Result<HTTPCall, PermissionClientError> {
        if let bad = endpoint.headers.first(where: { !Self.isFieldValue($0.value) }) {
            return .failure(.invalidArgument("the \(bad.name) value holds a CR, LF or NUL, which would end its header line"))
        }
        // libcurl leaves out a field with nothing after its colon: an empty `If-Match` would
        // turn a conditional write into an unconditional one.
        if let blank = endpoint.headers.first(where: { $0.value.allSatisfy { $0 == " " || $0 == "\t" } }) {
            return .failure(.invalidArgument("the \(blank.name) value is empty, and the field would not be sent"))
        }
        guard Self.isFieldValue(id) else {
            return .failure(.invalidArgument("the request id holds a CR, LF or NUL, which would end its header line"))
        }
        var body: [UInt8]?
        if let encode = endpoint.body {
            do {
                body = try encode()
            } catch {
                return .failure(.invalidArgument("cannot encode the request body: \(error)"))
            }
        }
        return .success(
            HTTPCall(
                method: endpoint.method, target: endpoint.path, body: body,
                headers: endpoint.headers, accept: endpoint.accept, readsOnly: endpoint.readsOnly))
    }

    /// Gives `configuration.onCall` the record of a finished call.
    /// - Parameters:
    ///   - started: when the call was made.
    ///   - queueWait: how long it waited for a call thread.
    func report<Value>(
        _ outcome: Result<PermissionResponse<Value>, PermissionClientError>, of call: HTTPCall, requestId id: String,
        attempts: Int, started: ContinuousClock.Instant, queueWait: Duration = .zero
    ) {
        guard let onCall = configuration.onCall else { return }
        var record = CallRecord(
            method: call.method, path: call.target, requestId: id, status: nil,
            attempts: attempts, duration: ContinuousClock.now - started, queueWait: queueWait, error: nil)
        switch outcome {
        case .success(let response):
            record.requestId = response.requestId
            record.status = response.status
        case .failure(let error):
            record.requestId = error.requestId ?? id
            record.status = error.status
            record.error = error
        }
        onCall(record)
    }

    /// Sends `call`, retrying where `retry` allows (see `RetryPolicy`).
    /// - Parameters:
    ///   - stream: receives 2xx body bytes as they arrive (see `EasyHandle.perform`).
    ///   - streamType: the media type a 2xx body must have to reach `stream`, if any.
    ///   - firstTimeoutMilliseconds: the first attempt's total timeout, when shorter than the
    ///     others' (what is left of it after the call's wait for a thread).
    ///   - idleLimit: the longest an attempt may go without a byte; `nil` for no limit.
    ///   - mayRetry: asked before a retry `retry` allows; `false` ends the call with the
    ///     last result (a download whose sink already took bytes cannot start over).
    /// - Returns: the last result and the number of attempts made.
    func execute(
        _ call: HTTPCall, requestId: String, cancel: CancellationFlag?, retry: RetryPolicy,
        timeoutMilliseconds: Int, firstTimeoutMilliseconds: Int? = nil, stream: ((UnsafeRawBufferPointer) -> Bool)? = nil,
        streamType: String? = nil, idleLimit: Duration? = nil, mayRetry: () -> Bool = { true }
    )
        -> (Result<RawResponse, PermissionClientError>, Int)
    {
        let url = baseURL + call.target
        let fields = fixedFields + ["X-Request-Id: " + requestId]
        var attempt = 0
        while true {
            // Cancelled before an attempt (between taking a thread and sending, or during a
            // backoff): nothing more is sent.
            if let cancel, cancel.isCancelled {
                let cancelled = PermissionClientError.transport(
                    code: PermissionClientError.cancelledCode, message: "cancelled", requestId: requestId)
                return (.failure(cancelled), attempt)
            }
            attempt += 1
            let result: Result<RawResponse, PermissionClientError>
            do {
                result = try pool.withHandle(fresh: !call.repeatsSafely) { handle in
                    handle.perform(
                        url: url, call: call, fields: fields,
                        timeoutMilliseconds: attempt == 1 ? firstTimeoutMilliseconds ?? timeoutMilliseconds : timeoutMilliseconds,
                        cancel: cancel, stream: stream, streamType: streamType, idleLimit: idleLimit)
                }
            } catch {
                result = .failure(error)
            }
            var again: Bool
            var retryAfter: String?
            switch result {
            case .success(let raw):
                again = retry.mayRetry(
                    status: raw.status, retryAfter: raw.retryAfter != nil, repeatsSafely: call.repeatsSafely)
                retryAfter = raw.retryAfter
                // A server that asks for a longer wait than the policy's longest delay gets its
                // answer back to the caller now rather than an attempt it said would fail.
                if again, let asked = retryAfter.flatMap({ RetryPolicy.retryAfterDelay($0, now: Date()) }),
                    asked > retry.maxDelay
                {
                    again = false
                }
            case .failure(.transport(let code, _, _)):
                again = retry.mayRetry(transportCode: code, repeatsSafely: call.repeatsSafely)
            case .failure: again = false
            }
            guard again, attempt < retry.maxAttempts, mayRetry() else {
                return (result.mapError { $0.withRequestId(requestId) }, attempt)
            }
            let sleeper = cancel ?? CancellationFlag()
            guard sleeper.sleep(for: retry.delay(after: attempt, retryAfter: retryAfter, now: Date())) else {
                return (
                    .failure(
                        .transport(
                            code: PermissionClientError.cancelledCode, message: "cancelled",
                            requestId: requestId)), attempt
                )
            }
        }
    }

    /// A 2xx becomes the decoded value; anything else an `.http` failure with the problem.
    private static func interpret<Value>(
        _ raw: RawResponse, endpoint: Endpoint<Value>, sentId: String, attempts: Int
    )
        -> Result<PermissionResponse<Value>, PermissionClientError>
    {
        let requestId = raw.requestId ?? sentId
        guard (200..<300).contains(raw.status) else {
            return .failure(refusal(raw, requestId: requestId, logPosition: endpoint.logPosition))
        }
        do {
            let value = try endpoint.decode(raw)
            return .success(
                PermissionResponse(
                    value: value, status: raw.status, requestId: requestId,
                    etag: raw.etag, attempts: attempts, revision: raw.revision))
        } catch {
            return .failure(.decoding(status: raw.status, message: error.description, requestId: requestId))
        }
    }

    /// The error of an answer outside 2xx: `.beyondLogHead` for a `beyond-log-head` problem
    /// and `.logDiverged` for a `log-diverged` one, naming the head, when the call read after
    /// `logPosition` (the change feed, an audit page); else `.http` with the problem.
    static func refusal(_ raw: RawResponse, requestId: String, logPosition: Int64?) -> PermissionClientError {
        let problem = problem(in: raw)
        if let logPosition, let head = problem?.head {
            switch problem?.problemType {
            case .beyondLogHead?: return .beyondLogHead(position: logPosition, head: head, requestId: requestId)
            case .logDiverged?: return .logDiverged(position: logPosition, head: head, requestId: requestId)
            default: break
            }
        }
        return .http(status: raw.status, problem: problem, requestId: requestId)
    }

    /// The RFC 9457 problem of an error answer, or `nil` when the body is not one (a proxy's
    /// HTML page, an empty body): the status alone still describes the failure. A problem
    /// without this API's members (a gateway's, whose every member RFC 9457 makes optional) is
    /// read for its `type`, `title` and `detail`, with the answer's status and request id.
    static func problem(in raw: RawResponse) -> Problem? {
        guard !raw.body.isEmpty else { return nil }
        if let problem = try? WireDecoder.decodeResponse(Problem.self, from: raw.body) { return problem }
        struct Other: Decodable {
            var type: String?
            var title: String?
            var detail: String?
        }
        guard let other = try? JSONDecoder().decode(Other.self, from: Data(raw.body)),
            other.title != nil || other.detail != nil
        else { return nil }
        return Problem(
            type: other.type ?? "about:blank", title: other.title ?? "", status: raw.status, detail: other.detail ?? "",
            requestId: raw.requestId ?? "")
    }

    /// Whether `value` can be sent as a header field's value: no CR, LF or NUL, which would
    /// end the line and let the rest be read as fields of its own (RFC 9110 §5.5).
    static func isFieldValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// A new request id: `pc-` and 16 hex digits (fits the API's `[A-Za-z0-9._:@+-]{1,128}`).
    static func makeRequestId() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return "pc-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension PermissionClientError {
    /// The same error with `requestId` filled in where libcurl failed before any answer.
    func withRequestId(_ id: String) -> PermissionClientError {
        if case .transport(let code, let message, nil) = self { return .transport(code: code, message: message, requestId: id) }
        return self
    }
}
