import Foundation
import HTTPCore
internal import Ownership
import PermissionDomain

/// `GET /v1/events`: the audit log as a live Server-Sent Events stream (WHATWG HTML §9.2): each
/// entry is `id: <seq>`, `event: <action>`, `data: <entry JSON>`; resumable with
/// `Last-Event-ID` (or `?after=`), filterable by user, app and service; idle streams get a
/// comment line every `eventsHeartbeat`. Without a starting point the stream begins at the
/// current end of the log; a starting point beyond it is `409 beyond-log-head`, and one sent
/// with the hash of the entry read there (`Last-Event-Hash`, `afterHash`) that the log's entry
/// does not have is `409 log-diverged` (``LogPosition``). An app key's stream is its app's own feed (``AuditQuery/affecting``: also
/// the entries naming no app that change what the app reads). Streams beyond
/// `maxEventStreamsPerKey` of one key get 429, beyond `maxEventStreams` in all 503. A stream
/// ends (and its connection closes) once its key is revoked, before it writes anything
/// committed after the revocation (`StreamKeyCheck`).
struct EventsController {
    static let contentType = "text/event-stream"
    /// The longest a stream sleeps before looking at the log again, in case a wake-up was missed.
    static let pollInterval: Duration = .milliseconds(500)
    /// The shortest time between a stream's reads of the log while it keeps up: a burst of
    /// writes (each wakes every stream) costs each stream a read per interval, not one a write.
    static let readInterval: Duration = .milliseconds(50)

    let permissions: PermissionService
    let broadcaster: ChangeBroadcaster
    let limiter: StreamLimiter
    /// The authenticator revocations invalidate: open streams check their key against it.
    let keys: KeyAuthenticator

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let broadcaster = broadcaster
        let limiter = limiter
        let keys = keys
        // On a worker: its first page is read before the head (up to 500 entries, decrypted),
        // and its stream holds a worker anyway.
        routes.get("/v1/events", access: .readEvents, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            var filter = AuditQuery()
            filter.user = try query.value("user") { try UserID($0) }
            filter.app = try query.value("app") { try AppID($0) }
            if let bound = request.principal.boundApp {
                // An app key reads its own events (SPEC §6): what changes its app's reads,
                // including the entries that name no app (`AuditQuery.affecting`).
                if let app = filter.app, app != bound { throw AccessControl.forbidden("This key is bound to another app.") }
                filter.app = nil
                filter.affecting = bound
            }
            filter.service = try query.value("service") { try ServiceID($0) }
            let start = try Self.start(request, query)
            if let resume = start.position {
                try LogPosition.require(
                    resume, hash: start.hash, sentAs: start.name, hashSentAs: start.hashName, permissions)
            }
            filter.after = try start.position ?? permissions.lastAuditSeq()
            filter.limit = request.configuration.streamPageSize
            let principal = request.principal
            let slot = try Self.slot(limiter, for: principal)
            let heartbeat = request.configuration.eventsHeartbeat
            // The first page is read before the answer's head: a database that cannot be read
            // is a 503 the client waits out, not a 200 cut off at once, again and again. The
            // broadcaster's generation is taken before it, as the loop does before each read.
            let firstPage = (
                seen: broadcaster.current, epoch: broadcaster.logEpoch, entries: try permissions.audit(query: filter)
            )
            let first = filter
            let logger = request.logger
            return HTTPResponse(
                status: .ok,
                // The stream only ends when the server stops or its key is revoked: then the
                // connection closes too, rather than waiting for a request with that key.
                headers: [
                    "Content-Type": Self.contentType, "Cache-Control": "no-store", "X-Accel-Buffering": "no",
                    "Connection": "close",
                ],
                body: .stream { writer in
                    // The slot is held as long as this closure lives.
                    defer { withExtendedLifetime(slot) {} }
                    var check = StreamKeyCheck(principal: principal, authenticator: keys)
                    let end = try Self.run(
                        writer, permissions, broadcaster, filter: first, firstPage: firstPage, heartbeat: heartbeat,
                        isStillValid: { try check.isStillValid() })
                    switch end {
                    case .keyRevoked:
                        logger.info(
                            "event stream ended: its key was revoked", metadata: ["key": "\(principal.actor.keyId ?? "-")"])
                    case .logWentBack:
                        logger.warning(
                            "event stream ended: the audit log went back; its client resumes from its last entry and is told",
                            metadata: ["key": "\(principal.actor.keyId ?? "-")"])
                    case .stopped, .clientLeft: break
                    }
                })
        }
    }

    /// A stream slot for `principal`'s key.
    /// - Throws: 429 with `Retry-After` when the key holds `maximumPerKey` streams, 503 when
    ///   `maximum` are open.
    private static func slot(_ limiter: StreamLimiter, for principal: Principal) throws -> StreamLimiter.Slot {
        do {
            return try limiter.acquire(key: principal.actor.keyId ?? principal.actor.role)
        } catch .keyAtCap {
            throw APIProblem(
                .tooManyRequests,
                "This key has \(limiter.maximumPerKey) event streams open, its most; close one or retry later.",
                headers: ["Retry-After": "5"])
        } catch .full {
            throw APIProblem(
                .unavailable, "Too many event streams are open (at most \(limiter.maximum)); retry later.",
                headers: ["Retry-After": "5"])
        }
    }

    /// Where a stream starts: the position (nil: at the end of the log) and the hash of the
    /// entry there the client read, if it sent one, with the names they came as.
    struct Start {
        var position: Int64?
        var name: String
        var hash: String?
        var hashName: String
    }

    /// `Last-Event-ID` (the id of the last event the client saw) with `Last-Event-Hash`, else
    /// `?after=` with `?afterHash=`, else nil. Both pairs are checked when both are sent, so a
    /// malformed `after`, `afterHash` or `Last-Event-Hash` is a 400 either way; a browser's
    /// `EventSource` resumes with `Last-Event-ID` on a URL that still holds its first `after`
    /// and `afterHash`, which then name another entry and are not compared. A hash without its
    /// position (or with position 0) has nothing to be compared with and is ignored.
    static func start(_ request: APIRequest, _ query: QueryParameters) throws -> Start {
        let after = try query.sequence("after")
        let afterHash = try LogPosition.hash(query.string("afterHash"), sentAs: "afterHash", position: after)
        if let header = request.headers["Last-Event-ID"] {
            let digits = header.trimmingCharacters(in: .whitespaces).utf8
            guard (1...19).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw APIProblem.invalidParameter("Last-Event-ID", "must be the id (seq) of an event: 1-19 digits")
            }
            // 19 digits may exceed the largest seq there can be: beyond the log's head, then.
            let position = Int64(String(decoding: digits, as: UTF8.self)) ?? Int64.max
            let hash = try LogPosition.hash(
                request.headers["Last-Event-Hash"], sentAs: "Last-Event-Hash", position: position)
            return Start(position: position, name: "Last-Event-ID", hash: hash, hashName: "Last-Event-Hash")
        }
        // A Last-Event-Hash without its Last-Event-ID is checked, and has nothing to go with.
        _ = try LogPosition.hash(request.headers["Last-Event-Hash"], sentAs: "Last-Event-Hash", position: nil)
        return Start(position: after, name: "after", hash: afterHash, hashName: "afterHash")
    }

    /// Why a stream ended without an error.
    enum StreamEnd {
        /// The application stops.
        case stopped
        /// The key is no longer valid (or, for a consent page's stream, its session).
        case keyRevoked
        /// The client closed or reset the connection while the stream was idle.
        case clientLeft
        /// The log went back under the stream (``ChangeBroadcaster/logWentBack()``).
        case logWentBack
    }

    /// Writes every matching entry after `filter.after`, then waits for the broadcaster (or the
    /// poll interval, or the heartbeat) and repeats, until the application stops, the key is
    /// no longer valid (`isStillValid`, asked between reading a page and writing anything), the
    /// client is seen gone while idle, the log goes back (its seqs after the stream's position
    /// are given out again: the client resumes and is told), or a write throws (the client left
    /// or stopped reading).
    /// The consent pages' stream (`/consent/events`) runs this too, with its session as the
    /// credential, only the entries `include` takes, and each written as `event` writes it.
    /// `firstPage`, when given, is the first page of `filter`, read before the stream began,
    /// with the broadcaster's generation taken just before that read.
    static func run(
        _ writer: any HTTPBodyWriter, _ permissions: PermissionService, _ broadcaster: ChangeBroadcaster,
        filter: AuditQuery, firstPage: (seen: UInt64, epoch: UInt64, entries: [AuditEntry])? = nil,
        heartbeat: Duration, isStillValid: () throws -> Bool,
        include: (AuditEntry) -> Bool = { _ in true },
        event: (AuditEntry, inout [UInt8]) throws -> Void = append
    ) throws -> StreamEnd {
        let clock = ContinuousClock()
        // Taken before the first page was read: a log that went back since is seen.
        let epoch = firstPage?.epoch ?? broadcaster.logEpoch
        var query = filter
        // A comment first, so that the client sees the stream open before any event.
        try writer.write(Array(": connected\n\n".utf8))
        try writer.flush()
        var lastWrite = clock.now
        var prefetched = firstPage
        var lastRead: ContinuousClock.Instant?
        var pageWasFull = false
        while !broadcaster.isClosed {
            if broadcaster.logEpoch != epoch { return .logWentBack }
            // Not while catching up (the last page was full): only the reads wake-ups bring.
            if prefetched == nil, !pageWasFull, let lastRead,
                case let remaining = lastRead + Self.readInterval - clock.now, remaining > .zero
            {
                // The writes meanwhile are read together.
                Thread.sleep(forTimeInterval: remaining.inSeconds)
            }
            let seen = prefetched?.seen ?? broadcaster.current
            let page: [AuditEntry]
            var head: Int64?
            if let first = prefetched {
                page = first.entries
            } else {
                let shown = try permissions.store.visibleRevision()
                head = shown
                // Every entry up to `query.after` was looked at: a wake-up (any write, anywhere)
                // reads the log again only once the revision shown has passed it. A replica whose
                // memory is not trusted (its follower cannot read the log) may not show what the
                // database holds: the log is read from the database then.
                if shown > query.after || !permissions.store.memoryIsFresh {
                    page = try permissions.audit(query: query)
                    lastRead = clock.now
                } else {
                    page = []
                }
            }
            prefetched = nil
            // After the read and before any write: a page read after a revocation is not sent.
            guard try isStillValid() else { return .keyRevoked }
            if let last = page.last {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(page.count * 320)
                for entry in page where include(entry) { try event(entry, &bytes) }
                if !bytes.isEmpty {
                    try writer.write(bytes)
                    try writer.flush()
                    lastWrite = clock.now
                }
                query.after = last.seq
                pageWasFull = page.count == query.limit
                if pageWasFull { continue }
            }
            pageWasFull = false
            // A page short of its limit holds every match up to what the read showed, at least
            // `head`: the next read starts past it.
            if let head { query.after = max(query.after, head) }
            let idle = clock.now - lastWrite
            if idle >= heartbeat {
                try writer.write(Array(": keep-alive\n\n".utf8))
                try writer.flush()
                lastWrite = clock.now
                continue
            }
            // A client that left frees its slot (and its key's) within a poll interval, not at
            // the next heartbeat's failed write.
            if writer.isPeerGone { return .clientLeft }
            broadcaster.wait(after: seen, timeout: min(pollInterval, heartbeat - idle))
        }
        return .stopped
    }

    /// One event (WHATWG HTML §9.2.6): the compact JSON has no line breaks, so one `data:` line.
    static func append(_ entry: AuditEntry, to bytes: inout [UInt8]) throws {
        bytes.append(contentsOf: "id: \(entry.seq)\nevent: \(entry.action.rawValue)\ndata: ".utf8)
        bytes.append(contentsOf: try Wire.WireEncoder.encode(WireMapping.audit(entry)))
        bytes.append(contentsOf: "\n\n".utf8)
    }
}
