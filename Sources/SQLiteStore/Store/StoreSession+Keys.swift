import Foundation
import PermissionDomain

/// API keys (SPEC §6): id, role, app binding, label, secret hash, creation and revocation.
extension StoreSession {
    private static let keyColumns = "id, role, app, name, secret_hash, created_at, revoked_at"

    func apiKey(id: KeyID) throws -> APIKey? {
        try row("SELECT \(Self.keyColumns) FROM api_keys WHERE id = ?1", bind: { $0.bind(id.rawValue, at: 1) }) {
            try Self.decodeKey($0)
        }
    }

    func apiKeys() throws -> [APIKey] {
        try rows("SELECT \(Self.keyColumns) FROM api_keys ORDER BY id", bind: { _ in }) { try Self.decodeKey($0) }
    }

    func save(_ key: APIKey) throws {
        try run(
            """
            INSERT INTO api_keys (id, role, app, name, secret_hash, created_at, revoked_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, revoked_at = excluded.revoked_at
            """
        ) { statement in
            statement.bind(key.id.rawValue, at: 1)
            statement.bind(key.role.rawValue, at: 2)
            statement.bind(key.app?.rawValue, at: 3)
            statement.bind(key.name, at: 4)
            statement.bind(blob: key.secretHash, at: 5)
            statement.bind(key.createdAt.millisecondsSince1970, at: 6)
            statement.bind(key.revokedAt, at: 7)
        }
    }

    private static func decodeKey(_ statement: Statement) throws -> APIKey {
        let id = try statement.requiredString(at: 0, "api_keys", "id")
        guard KeyID.isValid(id) else { throw corrupt("api_keys", "id") }
        let role = try statement.enumeration(Role.self, at: 1, "api_keys", "role")
        guard role.isKeyRole else { throw corrupt("api_keys", "role") }
        guard let hash = statement.blob(at: 4), hash.count == 32 else { throw corrupt("api_keys", "secret_hash") }
        return APIKey(
            trusted: KeyID(trusted: id), role: role, app: statement.string(at: 2).map { AppID(trusted: $0) },
            name: try statement.requiredString(at: 3, "api_keys", "name"), secretHash: hash,
            createdAt: Date(millisecondsSince1970: statement.int64(at: 5)), revokedAt: statement.date(at: 6))
    }
}
