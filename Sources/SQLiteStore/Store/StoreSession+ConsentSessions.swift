import Foundation
import PermissionDomain
import StoredRows

/// Consent sessions (SPEC §10): found by id, by the link token's hash or by the cookie
/// secret's hash, each a unique key.
extension StoreSession {
    private static let columns =
        "id, user, token_hash, secret_hash, csrf_hash, created_at, expires_at, exchanged_at, ended_at"

    func consentSession(id: ConsentSessionID) throws -> ConsentSession? {
        try row("SELECT \(Self.columns) FROM consent_sessions WHERE id = ?1", bind: { $0.bind(id.rawValue, at: 1) }) {
            try ConsentSession(storedColumns: $0)
        }
    }

    func consentSession(tokenHash: [UInt8]) throws -> ConsentSession? {
        try row(
            "SELECT \(Self.columns) FROM consent_sessions WHERE token_hash = ?1",
            bind: { $0.bind(blob: tokenHash, at: 1) }
        ) { try ConsentSession(storedColumns: $0) }
    }

    func consentSession(secretHash: [UInt8]) throws -> ConsentSession? {
        try row(
            "SELECT \(Self.columns) FROM consent_sessions WHERE secret_hash = ?1",
            bind: { $0.bind(blob: secretHash, at: 1) }
        ) { try ConsentSession(storedColumns: $0) }
    }

    func save(_ session: ConsentSession) throws {
        try run(
            """
            INSERT INTO consent_sessions (\(Self.columns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (id) DO UPDATE SET secret_hash = excluded.secret_hash, csrf_hash = excluded.csrf_hash,
                exchanged_at = excluded.exchanged_at, ended_at = excluded.ended_at, expires_at = excluded.expires_at
            """
        ) { statement in
            statement.bind(session.id.rawValue, at: 1)
            statement.bind(session.user.rawValue, at: 2)
            statement.bind(blob: session.tokenHash, at: 3)
            if let hash = session.secretHash { statement.bind(blob: hash, at: 4) } else { statement.bindNull(at: 4) }
            if let hash = session.csrfHash { statement.bind(blob: hash, at: 5) } else { statement.bindNull(at: 5) }
            statement.bind(session.createdAt.millisecondsSince1970, at: 6)
            statement.bind(session.expiresAt.millisecondsSince1970, at: 7)
            statement.bind(session.exchangedAt, at: 8)
            statement.bind(session.endedAt, at: 9)
        }
    }
}
