import Foundation
public import PermissionWire
import Synchronization

/// The change feed, `GET /v1/events` (SPEC §5): the audit sequence as Server-Sent Events.
/// Every event with data is read as an `AuditEntry`, whatever its `event` name (openapi.yaml
/// names it `audit`; a server may name it after the action).
extension PermissionClient {
    /// Follows the change feed on the calling thread until `onEvent` returns `false`, the
    /// server refuses (`.http`; `.beyondLogHead` when it resumed after an entry the log no
    /// longer has, `.logDiverged` when the entry there is another one than was read), or
    /// reconnecting fails `configuration.eventsRetry.maxAttempts` times in a row (by default
    /// about one to two minutes without a server: a restart or a rolling update is ridden out),
    /// or a connection fails in a way a reconnection would meet again (`.transport` with the
    /// libcurl code: a URL libcurl refuses, a TLS certificate that does not verify).
    /// A lost connection is resumed after the last entry seen (`Last-Event-ID`, with its hash as
    /// `Last-Event-Hash`, so that a log restored from an earlier backup that has grown past it
    /// again is told apart), and so is an
    /// answer that says "later": `503` (a replica restarting or overloaded, too many streams),
    /// `502`, `504` and `429` (the key's stream cap), after the `Retry-After` they carry
    /// (seconds or an HTTP-date; at most 60 s, never sooner than the retry policy's delay),
    /// each counting as a failed attempt. Any other status ends the feed with `.http`. A
    /// connection that brings no byte (not even the server's heartbeat comment) for
    /// `configuration.eventsIdleTimeout` is dropped and resumed as a lost one. An event larger
    /// than 1 MiB (its `data` lines together) ends the feed with `.decoding`.
    /// - Parameters:
    ///   - after: start after this `seq` (`nil`: from the beginning of the log, sent as
    ///     `Last-Event-ID: 0`; the server alone would start at the current end).
    ///   - afterHash: the `hash` of the entry `after` names, as it was read (a consumer that
    ///     keeps its position keeps this with it); `nil` to send none on the first connection.
    ///   - filter: `user`, `app` and `service` narrow the feed; other members are ignored.
    ///   - onEvent: called with each entry, in `seq` order; return `false` to stop.
    /// - Throws: `.invalidArgument` for an `afterHash` without an `after` of 1 or more.
    public func followEvents(
        after: Int64? = nil, afterHash: String? = nil, filter: AuditQuery = AuditQuery(),
        onEvent: (AuditEntry) -> Bool
    ) throws(PermissionClientError) {
        try followEvents(after: after, afterHash: afterHash, filter: filter, cancel: nil, onEvent: onEvent)
    }

    /// The change feed as an async sequence; it ends when the consuming task stops iterating
    /// (the connection is closed), and throws a `PermissionClientError` when the feed fails.
    /// It is followed on a thread of its own, started at once, and not on one of the client's
    /// call threads: a feed may stay open for hours, and would otherwise hold a thread of the
    /// capped pool (`Configuration.maxCallThreads`) all that time and starve the calls. Each
    /// open feed costs a thread; the server caps the streams open at once (per key, and in all).
    /// - Parameters:
    ///   - after: start after this `seq` (`nil`: from the beginning of the log).
    ///   - afterHash: the `hash` of the entry `after` names, as it was read, if kept.
    ///   - filter: `user`, `app` and `service` narrow the feed.
    ///
    /// Iterate it from one task: a second task calling `next()` while another waits in it stops
    /// the process (they would race on the sequence).
    ///
    /// At most 256 entries wait to be taken: while that many do, the thread stops reading the
    /// connection (a consumer slower than the network holds no more than that in memory; the
    /// server may drop a connection that long unread, and the feed then resumes from its
    /// position).
    public func events(
        after: Int64? = nil, afterHash: String? = nil, filter: AuditQuery = AuditQuery()
    ) -> AsyncThrowingStream<AuditEntry, any Error> {
        events(after: after, afterHash: afterHash, filter: filter, handoff: FeedHandoff())
    }

    /// ``events(after:afterHash:filter:)`` through `handoff` (tests choose its limit and read it).
    func events(
        after: Int64?, afterHash: String?, filter: AuditQuery, handoff: FeedHandoff
    ) -> AsyncThrowingStream<AuditEntry, any Error> {
        let cancel = CancellationFlag()
        let (stream, continuation) = AsyncThrowingStream<AuditEntry, any Error>.makeStream()
        continuation.onTermination = { _ in
            handoff.close()
            cancel.cancel()
        }
        let thread = Thread { [self] in
            do throws(PermissionClientError) {
                try followEvents(after: after, afterHash: afterHash, filter: filter, cancel: cancel) { entry in
                    guard handoff.reserve() else { return false }
                    if case .terminated = continuation.yield(entry) { return false }
                    return true
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error.isCancelled ? nil : error)
            }
        }
        thread.name = "PermissionClient.events"
        thread.start()
        // What the consumer iterates: each entry it takes makes room for the next.
        let taking = FeedIterator(stream.makeAsyncIterator())
        return AsyncThrowingStream {
            let entry = try await taking.next()
            if entry != nil { handoff.took() }
            return entry
        }
    }

    func followEvents(
        after: Int64?, afterHash: String?, filter: AuditQuery, cancel: CancellationFlag?,
        onEvent: (AuditEntry) -> Bool
    ) throws(PermissionClientError) {
        var lastSeq = after ?? 0
        if afterHash != nil, lastSeq < 1 {
            throw .invalidArgument("afterHash goes with the position of an entry read (after 1 or more)")
        }
        // The hash of the entry at lastSeq as it was read, sent with it so that the server can
        // tell whether its entry there is still that one.
        var lastHash = afterHash
        var failures = 0
        let idleLimit = configuration.eventsIdleTimeout > .zero ? configuration.eventsIdleTimeout : nil
        while true {
            let requestId = Self.makeRequestId()
            var parser = EventStreamParser()
            var stopped = false
            var decodeFailure: PermissionClientError?
            var headers = [(name: "Last-Event-ID", value: String(lastSeq))]
            if let lastHash { headers.append((name: "Last-Event-Hash", value: lastHash)) }
            let call = HTTPCall(
                method: "GET",
                target: PathEncoding.query(
                    "/v1/events", [("user", filter.user), ("app", filter.app), ("service", filter.service)]),
                body: nil, headers: headers, accept: "text/event-stream")
            let result = withoutActuallyEscaping(onEvent) { onEvent in
                execute(
                    call, requestId: requestId, cancel: cancel, retry: .none, timeoutMilliseconds: 0,
                    stream: { bytes in
                        let events = parser.feed(bytes)
                        // A heartbeat after the opening comment shows the feed works, quiet as
                        // the log may be: a drop after it (a proxy's timeout) starts the count over.
                        if parser.comments >= 2 { failures = 0 }
                        for event in events {
                            do {
                                let entry = try WireDecoder.decodeResponse(AuditEntry.self, from: Array(event.data.utf8))
                                lastSeq = entry.seq
                                lastHash = entry.hash
                                failures = 0
                                guard onEvent(entry) else {
                                    stopped = true
                                    return false
                                }
                            } catch {
                                decodeFailure = .decoding(
                                    status: 200, message: "event \(event.id ?? "?"): \(error)", requestId: requestId)
                                return false
                            }
                        }
                        return !parser.overflowed
                    }, streamType: Self.eventStreamType, idleLimit: idleLimit
                ).0
            }
            if let decodeFailure { throw decodeFailure }
            if parser.overflowed {
                throw .decoding(
                    status: 200,
                    message: "an event or line of the feed is larger than \(EventStreamParser.maxEventBytes) bytes",
                    requestId: requestId)
            }
            if stopped { return }
            var retryAfter: String?
            if case .success(let raw) = result, (200..<300).contains(raw.status),
                !Self.isMediaType(raw.contentType, Self.eventStreamType)
            {
                // A proxy's page or a wrong URL: reading it again would not make it a feed.
                throw .decoding(
                    status: raw.status, message: "the feed answered \(raw.contentType ?? "untyped"), not \(Self.eventStreamType)",
                    requestId: raw.requestId ?? requestId)
            }
            switch result {
            case .success(let raw) where !(200..<300).contains(raw.status):
                let refusal = Self.refusal(raw, requestId: raw.requestId ?? requestId, logPosition: lastSeq)
                switch refusal {
                case .beyondLogHead, .logDiverged: throw refusal
                default: break
                }
                failures += 1
                guard Self.feedRetryStatuses.contains(raw.status), failures < configuration.eventsRetry.maxAttempts else {
                    throw refusal
                }
                retryAfter = raw.retryAfter
            case .failure(let error) where error.isCancelled:
                throw error
            case .failure(.transport(let code, let message, let id)) where RetryPolicy.permanentCodes.contains(code):
                throw .transport(code: code, message: message, requestId: id)  // the next attempt would meet it again
            case .failure(let error) where failures + 1 >= configuration.eventsRetry.maxAttempts:
                throw error
            case .success, .failure:
                failures += 1
                guard failures < configuration.eventsRetry.maxAttempts else {
                    throw .transport(code: 52, message: "the event stream ended", requestId: requestId)
                }
            }
            let delay = configuration.eventsRetry.delay(after: failures, retryAfter: retryAfter, now: Date())
            let sleeper = cancel ?? CancellationFlag()
            guard sleeper.sleep(for: delay) else {
                throw .transport(code: PermissionClientError.cancelledCode, message: "cancelled", requestId: requestId)
            }
        }
    }

    /// Statuses after which the feed reconnects (after their `Retry-After`): a proxy's or an
    /// overloaded server's "try again" (`RetryPolicy`'s), and `429` from the per-key stream cap.
    static let eventStreamType = "text/event-stream"

    static let feedRetryStatuses = RetryPolicy.retryableStatuses.union([429])
}

/// The inner stream's iterator, for the outer stream's `unfolding` closure, which only the
/// consuming task calls, one call at a time (an `AsyncThrowingStream`'s iterator is used by one
/// task): `@unchecked Sendable` for that, and a second call while one runs stops the process
/// (two tasks iterating one feed would race on the iterator).
final class FeedIterator: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<AuditEntry, any Error>.AsyncIterator
    private let running = Atomic(false)

    init(_ iterator: AsyncThrowingStream<AuditEntry, any Error>.AsyncIterator) { self.iterator = iterator }

    /// Whether a call of ``next()`` is running.
    var isIterating: Bool { running.load(ordering: .acquiring) }

    func next() async throws -> AuditEntry? {
        precondition(
            running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged,
            "a change feed iterated by two tasks at once: iterate each events(...) sequence from one task")
        defer { running.store(false, ordering: .releasing) }
        return try await iterator.next()
    }
}
