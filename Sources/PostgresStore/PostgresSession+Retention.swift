import Foundation
import PermissionDomain

/// The retention sweep's deletes (``PermissionService/purgeEnded(now:limit:)``), each an index
/// range of migration `10-ended-retention`, oldest first.
extension PostgresSession {
    private static let deleteEndedPrompts = PreparedStatement(
        """
        DELETE FROM prompts WHERE id IN (
            SELECT id FROM prompts WHERE state <> 'pending' AND ended_at < $1 ORDER BY ended_at, id LIMIT $2)
        """)
    private static let deleteEndedSessions = PreparedStatement(
        """
        DELETE FROM consent_sessions WHERE id IN (
            SELECT id FROM consent_sessions WHERE expires_at < $1 ORDER BY expires_at, id LIMIT $2)
        """)

    func deleteEndedPrompts(before date: Date, limit: Int) throws -> Int {
        try run(Self.deleteEndedPrompts, [.int64(date.millisecondsSince1970), Self.limit(limit)])
    }

    func deleteEndedConsentSessions(before date: Date, limit: Int) throws -> Int {
        try run(Self.deleteEndedSessions, [.int64(date.millisecondsSince1970), Self.limit(limit)])
    }
}
