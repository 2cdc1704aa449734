import Foundation
import PermissionDomain
import StoredRows

/// Consent sessions (SPEC §10): found by id, by the link token's hash or by the cookie
/// secret's hash, each a unique key.
extension PostgresSession {
    private static let columns =
        "id, user_id, token_hash, secret_hash, csrf_hash, created_at, expires_at, exchanged_at, ended_at"
    private static let selectByID = PreparedStatement("SELECT \(columns) FROM consent_sessions WHERE id = $1")
    private static let selectByToken = PreparedStatement(
        "SELECT \(columns) FROM consent_sessions WHERE token_hash = $1")
    private static let selectBySecret = PreparedStatement(
        "SELECT \(columns) FROM consent_sessions WHERE secret_hash = $1")
    private static let upsert = PreparedStatement(
        """
        INSERT INTO consent_sessions (\(columns))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
        ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, csrf_hash = excluded.csrf_hash,
            exchanged_at = excluded.exchanged_at, ended_at = excluded.ended_at, expires_at = excluded.expires_at
        """)

    func consentSession(id: ConsentSessionID) throws -> ConsentSession? {
        try row(Self.selectByID, [.text(id.rawValue)]) { try ConsentSession(storedColumns: $0) }
    }

    func consentSession(tokenHash: [UInt8]) throws -> ConsentSession? {
        try row(Self.selectByToken, [.bytes(tokenHash)]) { try ConsentSession(storedColumns: $0) }
    }

    func consentSession(secretHash: [UInt8]) throws -> ConsentSession? {
        try row(Self.selectBySecret, [.bytes(secretHash)]) { try ConsentSession(storedColumns: $0) }
    }

    func save(_ session: ConsentSession) throws {
        try run(
            Self.upsert,
            [
                .text(session.id.rawValue), .text(session.user.rawValue), .bytes(session.tokenHash),
                session.secretHash.map(PostgresValue.bytes) ?? .null, session.csrfHash.map(PostgresValue.bytes) ?? .null,
                .int64(session.createdAt.millisecondsSince1970), .int64(session.expiresAt.millisecondsSince1970),
                .date(session.exchangedAt), .date(session.endedAt),
            ])
    }
}
