import Foundation
import HTTPCore
import PermissionDomain

/// `GET /consent/events`: the session user's own prompt changes (`prompt.*` audit entries) as
/// Server-Sent Events, run by the `/v1/events` loop (``EventsController/run``): the same
/// stream caps (a session counts as one key: ``StreamLimiter``), heartbeats, resumption with
/// `Last-Event-ID` (one beyond the log's head, ``LogPosition``, starts at the end of the log
/// instead of `/v1/events`' 409); it ends at shutdown and when the session ends or expires. The prompts
/// page's script re-reads `/consent/prompts-fragment` on each event.
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
            if let last = Self.lastEventID(request), try LogPosition.headIfBeyond(last, permissions) == nil {
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
                        include: { $0.action.rawValue.hasPrefix("prompt.") })
                })
        }
    }

    /// A well-formed `Last-Event-ID` (the seq of the last event seen), else nil: the browser
    /// resends it when it reconnects.
    static func lastEventID(_ request: HTTPRequest) -> Int64? {
        guard let header = request.headers["Last-Event-ID"] else { return nil }
        let digits = header.trimmingCharacters(in: .whitespaces)
        guard (1...18).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(digits)
    }
}
