import Foundation
import HTTPCore
import PermissionDomain

/// Consent links (SPEC §10), admin and consent keys: make one for a user (the one-time token is
/// in the 201 answer, once; only its hash is stored), read a session's state (what the 201's
/// `Location` names) and end a session at once.
struct ConsentSessionsController {
    let permissions: PermissionService
    /// The base of the links (`--public-url`), without a trailing "/"; empty for relative links.
    let publicURL: String

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let base = publicURL
        routes.post("/v1/users/{user}/consent-sessions", access: .consentSessions) { request in
            let user = try request.user()
            if !request.http.body.isEmpty { _ = try request.decode(Wire.NewConsentSession.self) }
            let id = ConsentSecret.makeID()
            let token = ConsentSecret.make()
            let session = try permissions.createConsentSession(
                id: id, user: user, tokenHash: ConsentSecret.hash(token), actor: request.actor,
                requestId: request.requestId)
            let link = Wire.ConsentSessionLink(
                id: id.rawValue, url: "\(base)/consent/start?token=\(token)", expiresAt: session.expiresAt)
            return try Responses.json(
                link, status: .created,
                headers: ["Location": "/v1/consent-sessions/\(id.rawValue)", "Cache-Control": "no-store"])
        }
        routes.get("/v1/consent-sessions/{id}", access: .consentSessions) { request in
            let id = try ConsentSessionID(request.parameter("id"))
            guard let session = try permissions.consentSession(id: id) else {
                throw PermissionError.notFound(what: "consent session \(id)")
            }
            return try Responses.json(Self.wire(session, at: permissions.clock.now), headers: ["Cache-Control": "no-store"])
        }
        routes.delete("/v1/consent-sessions/{id}", access: .consentSessions) { request in
            let id = try ConsentSessionID(request.parameter("id"))
            try permissions.endConsentSession(id: id, actor: request.actor, requestId: request.requestId)
            return Responses.noContent()
        }
    }

    /// `session` as the API shows it at `now`.
    static func wire(_ session: ConsentSession, at now: Date) -> Wire.ConsentSession {
        let state: Wire.ConsentSession.State =
            switch session.state(at: now) {
            case .unopened: .unopened
            case .open: .open
            case .ended: .ended
            case .expired: .expired
            }
        return Wire.ConsentSession(
            id: session.id.rawValue, user: session.user.rawValue, state: state, createdAt: session.createdAt,
            expiresAt: session.expiresAt, openedAt: session.exchangedAt, endedAt: session.endedAt)
    }
}
