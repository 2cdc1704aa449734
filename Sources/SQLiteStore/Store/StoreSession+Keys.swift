import Foundation
import PermissionDomain
import StoredRows

/// API keys (SPEC §6): id, role, app binding, label, secret hash, creation and revocation.
extension StoreSession {
    private static let keyColumns = "id, role, app, name, secret_hash, created_at, revoked_at"

    func apiKey(id: KeyID) throws -> APIKey? {
        try row("SELECT \(Self.keyColumns) FROM api_keys WHERE id = ?1", bind: { $0.bind(id.rawValue, at: 1) }) {
            try APIKey(storedColumns: $0)
        }
    }

    func apiKeys() throws -> [APIKey] {
        try rows("SELECT \(Self.keyColumns) FROM api_keys ORDER BY id", bind: { _ in }) { try APIKey(storedColumns: $0) }
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
}
