import Foundation
import PermissionDomain
import StoredRows

/// API keys (SPEC §6): id, role, app binding, label, secret hash, creation and revocation.
extension PostgresSession {
    private static let keyColumns = "id, role, app, name, secret_hash, created_at, revoked_at"
    private static let selectKey = PreparedStatement("SELECT \(keyColumns) FROM api_keys WHERE id = $1")
    private static let selectKeys = PreparedStatement("SELECT \(keyColumns) FROM api_keys ORDER BY id")
    private static let upsertKey = PreparedStatement(
        """
        INSERT INTO api_keys (id, role, app, name, secret_hash, created_at, revoked_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, revoked_at = excluded.revoked_at
        """)

    func apiKey(id: KeyID) throws -> APIKey? {
        try row(Self.selectKey, [.text(id.rawValue)]) { try APIKey(storedColumns: $0) }
    }

    func apiKeys() throws -> [APIKey] {
        try rows(Self.selectKeys) { try APIKey(storedColumns: $0) }
    }

    func save(_ key: APIKey) throws {
        try run(
            Self.upsertKey,
            [
                .text(key.id.rawValue), .text(key.role.rawValue), .optional(key.app?.rawValue), .text(key.name),
                .bytes(key.secretHash), .int64(key.createdAt.millisecondsSince1970), .date(key.revokedAt),
            ])
    }
}
