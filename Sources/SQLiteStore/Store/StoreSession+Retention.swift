import Foundation
import PermissionDomain

/// The retention sweep's deletes (``PermissionService/purgeEnded(now:limit:)``), each an index
/// range of migration `13-ended-retention`, oldest first.
extension StoreSession {
    func deleteEndedPrompts(before date: Date, limit: Int) throws -> Int {
        try run(
            """
            DELETE FROM prompts WHERE id IN (
                SELECT id FROM prompts WHERE state <> 'pending' AND ended_at < ?1 ORDER BY ended_at, id LIMIT ?2)
            """
        ) { statement in
            statement.bind(date.millisecondsSince1970, at: 1)
            statement.bind(Self.limit(limit), at: 2)
        }
        return database.changes
    }

    func deleteEndedConsentSessions(before date: Date, limit: Int) throws -> Int {
        try run(
            """
            DELETE FROM consent_sessions WHERE id IN (
                SELECT id FROM consent_sessions WHERE expires_at < ?1 ORDER BY expires_at, id LIMIT ?2)
            """
        ) { statement in
            statement.bind(date.millisecondsSince1970, at: 1)
            statement.bind(Self.limit(limit), at: 2)
        }
        return database.changes
    }
}
