import HTTPCore
import PermissionDomain
import PermissionWire

/// API keys (SPEC §6), admin only: list the active keys (never a secret), issue one (the
/// secret is in the 201 answer, once), revoke one (it stops working at once; the last active
/// admin key cannot be revoked, 409).
struct KeysController {
    let permissions: PermissionService
    /// Emptied on every revocation, so that a revoked key fails on its next request.
    let authenticator: KeyAuthenticator

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let authenticator = authenticator
        routes.get("/v1/keys", access: .admin) { _ in
            let keys = try permissions.keys().filter(\.isActive)
            return try Responses.json(PermissionWire.APIKeyList(items: keys.map(Self.wire)))
        }
        routes.post("/v1/keys", access: .admin) { request in
            let body: NewAPIKey
            do {
                body = try request.decode(NewAPIKey.self)
            } catch let error as Wire.WireDecodingError {
                // `user` is a role, but a consent session's: say so instead of "unknown value".
                guard Self.asksForUserRole(request.http.body) else { throw error }
                throw PermissionError.invalidCombination(
                    field: "role",
                    why: "user is a consent session's role, never an API key's; "
                        + "make a consent link with POST /v1/users/{user}/consent-sessions")
            }
            guard let role = Role(rawValue: body.role.rawValue) else {
                throw APIProblem(.invalidRequest, "role: unknown role")
            }
            let (id, secret) = KeySecret.generate()
            let key = try permissions.createKey(
                id: id, role: role, app: body.app.map { try AppID($0) }, name: body.name ?? "\(role.rawValue) key",
                secretHash: KeySecret.hash(secret.utf8), actor: request.actor, requestId: request.requestId)
            return try Responses.json(
                IssuedAPIKey(key: Self.wire(key), secret: secret), status: .created,
                headers: ["Location": "/v1/keys/\(id.rawValue)", "Cache-Control": "no-store"])
        }
        // What a creation's `Location` names: one active key, never its secret.
        routes.get("/v1/keys/{id}", access: .admin) { request in
            let id = try KeyID(request.parameter("id"))
            guard let key = try permissions.key(id: id), key.isActive else {
                throw PermissionError.notFound(what: "key \(id.rawValue)")
            }
            return try Responses.json(Self.wire(key))
        }
        routes.delete("/v1/keys/{id}", access: .admin) { request in
            let id = try KeyID(request.parameter("id"))
            defer { authenticator.invalidate() }
            _ = try permissions.revokeKey(id: id, actor: request.actor, requestId: request.requestId)
            return Responses.noContent()
        }
    }

    /// Whether `body` is a JSON object whose `role` is `"user"`.
    static func asksForUserRole(_ body: [UInt8]) -> Bool {
        struct RoleOnly: Decodable { let role: String }
        return (try? WireDecoder.decodeResponse(RoleOnly.self, from: body))?.role == Role.user.rawValue
    }

    static func wire(_ key: PermissionDomain.APIKey) -> PermissionWire.APIKey {
        let role: PermissionWire.APIKey.Role =
            switch key.role {
            case .admin: .admin
            case .consent: .consent
            case .app: .app
            case .auditor: .auditor
            case .user: preconditionFailure("no API key has role user")
            }
        return PermissionWire.APIKey(
            id: key.id.rawValue, role: role, app: key.app?.rawValue, name: key.name, createdAt: key.createdAt)
    }
}
