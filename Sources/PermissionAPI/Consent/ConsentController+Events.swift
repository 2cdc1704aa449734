import Foundation
import HTTPCore
import PermissionDomain

/// `GET /consent/events`: the session user's own prompt changes (`prompt.*` audit entries) as
/// Server-Sent Events, run by the `/v1/events` loop (``EventsController/run``): heartbeats,
/// resumption with `Last-Event-ID` (one beyond the log's head, ``LogPosition``, starts at the
/// end of the log instead of `/v1/events`' 409); it ends at shutdown and when the session ends
/// or expires. Its streams have caps of their own (`--max-consent-event-streams`; a session
/// counts as one key: ``StreamLimiter``), so that open pages never take the backends' feed.
/// The prompts page's script re-reads `/consent/prompts-fragment` on each event, so an event
/// carries its name and seq only (``appendPromptEvent(_:to:)``), not the audit entry: the
/// browser has no use for the actors' key ids, the chain's hashes or the request ids.
extension ConsentController {
    func registerEvents(on routes: inout APIRoutes) {
        let permissions = permissions
        let broadcaster = broadcaster
        let limiter = limiter
        let heartbeat = configuration.eventsHeartbeat
        let pageSize = configuration.streamPageSize
        routes.page(.get, "/consent/events", access: .readPrompts, sessions: sessions) { request, _, visit in
            let slot: StreamLimiter.Slot
            do {
                slot = try limiter.acquire(key: visit.session.id.rawValue)
            } catch StreamLimiter.Refusal.keyAtCap {
                throw ConsentPageError.busy(.tooManyRequests)
            } catch StreamLimiter.Refusal.full {
                throw ConsentPageError.busy(.serviceUnavailable)
            }
            var filter = AuditQuery(user: visit.user, limit: pageSize)
            // The browser's Last-Event-ID when it reconnects, else the position the page was
            // made at (`after`), so that nothing between the page and the stream is missed.
            if let last = Self.lastEventID(request) ?? Self.position(try? request.queryValue("after")),
                try LogPosition.headIfBeyond(last, permissions) == nil
            {
                filter.after = last
            } else {
                // No id, or one beyond the log's head (a restore from an earlier backup): the
                // end of the log. A browser's EventSource gives up on an error status; the page
                // re-reads its prompts whenever the stream opens again.
                filter.after = try permissions.lastAuditSeq()
            }
            let check = ConsentStreamCheck(permissions: permissions, session: visit.session)
            let start = filter
            return HTTPResponse(
                status: .ok,
                headers: [
                    "Content-Type": EventsController.contentType, "X-Accel-Buffering": "no", "Connection": "close",
                ],
                body: .stream { writer in
                    defer { withExtendedLifetime(slot) {} }
                    _ = try EventsController.run(
                        writer, permissions, broadcaster, filter: start, heartbeat: heartbeat,
                        isStillValid: { try check.isStillValid() },
                        include: { $0.action.rawValue.hasPrefix("prompt.") }, event: Self.appendPromptEvent)
                })
        }
    }

    /// One event of the page's stream: its seq (the id `Last-Event-ID` resumes after) and the
    /// entry's action, with a `data` line, without which `EventSource` dispatches nothing
    /// (WHATWG HTML §9.2.6).
    static func appendPromptEvent(_ entry: AuditEntry, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "id: \(entry.seq)\nevent: \(entry.action.rawValue)\ndata: {\"seq\":\(entry.seq)}\n\n".utf8)
    }

    /// A well-formed `Last-Event-ID` (the seq of the last event seen), else nil: the browser
    /// resends it when it reconnects.
    static func lastEventID(_ request: HTTPRequest) -> Int64? {
        position(request.headers["Last-Event-ID"])
    }

    /// A seq of 1 to 18 digits (surrounding blanks dropped), else nil.
    static func position(_ text: String?) -> Int64? {
        guard let digits = text?.trimmingCharacters(in: .whitespaces), (1...18).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int64(digits)
    }
}
