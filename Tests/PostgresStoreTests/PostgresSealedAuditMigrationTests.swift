import AuditKeys
import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import Testing

@testable import PostgresStore

/// Migration 6 on PostgreSQL, as SQLite's 8: a log written before personal fields were sealed
/// is resealed and rehashed at the next start, the old head recorded in one `audit.resealed`
/// entry, and the chain head row moved to the new end.
@Suite struct PostgresSealedAuditMigrationTests {
    /// An insert into the table as it was before the migration (no `personal`).
    static let insertV1 = PreparedStatement(
        """
        INSERT INTO audit (seq, at, actor_key, actor_role, action, user_id, app, service, to_status, to_provisional,
                           to_once, reason, purpose, purpose_hash, prev_hash, hash)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
        """)

    @Test func anOldLogIsResealedAndItsHeadRecorded() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let connection = try PostgresConnection(database)
        try PostgresMigrator(Array(PostgresSchema.migrations.migrations.prefix(4))).migrate(connection)

        // 12 entries in the format before sealing, two of them about no user.
        let chain = AuditChain.sha256V1
        var tip = AuditChainTip.empty
        for seq in Int64(1)...12 {
            let aboutUser = seq % 6 != 0
            var record = AuditRecord(
                seq: seq, at: 1_795_000_000_000 + seq, actorKey: "k-admin", actorRole: "admin", action: "authorization.set",
                user: aboutUser ? "user-\(seq % 3)" : nil, app: "com.example.scanner", service: "camera",
                toStatus: "authorized", toProvisional: 0, toOnce: 0, reason: "userConsent",
                purpose: aboutUser ? "Scan documents." : nil,
                purposeHash: aboutUser ? chain.purposeHash(of: "Scan documents.") : nil, prevHash: tip.hash)
            record.hash = chain.hash(of: record)
            tip = AuditChainTip(linking: record)
            _ = try connection.execute(
                Self.insertV1,
                [
                    .int64(record.seq), .int64(record.at), .optional(record.actorKey), .optional(record.actorRole),
                    .optional(record.action), .optional(record.user), .optional(record.app), .optional(record.service),
                    .optional(record.toStatus), .optional(record.toProvisional), .optional(record.toOnce),
                    .optional(record.reason), .optional(record.purpose), .optional(record.purposeHash),
                    .optional(record.prevHash), .optional(record.hash),
                ])
        }
        try PostgresSession(connection: connection).moveAuditChainHead(to: tip)

        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 2)
        let entries = try store.read { try $0.audit(query: AuditQuery(limit: 100)) }
        #expect(entries.count == 13)
        let resealed = try #require(entries.last)
        #expect(resealed.action == .auditResealed && resealed.actor == .system && resealed.seq == 13)
        #expect(resealed.detail["previousHead"] == tip.hash && resealed.detail["previousSeq"] == "12")
        #expect(resealed.detail["previousChainIntact"] == "true")
        #expect(entries[0].user?.rawValue == "user-1" && entries[0].purpose?.rawValue == "Scan documents.")
        #expect(entries[0].pseudonym != nil && entries[5].pseudonym == nil)
        #expect(try store.read { try $0.audit(query: AuditQuery(user: UserID("user-1"), limit: 100)) }.count == 4)
        let report = try store.verifyAuditChain(batchSize: 5, progress: nil)
        #expect(report.isIntact && report.totalEntries == 13 && report.lastIntactHash == resealed.hash)

        // The head row follows: the next write chains on.
        _ = try store.write { try $0.append(AuditEntry(at: Date(), actor: .system, action: .servicePut, service: .camera)) }
        #expect(try store.verifyAuditChain(batchSize: 5, progress: nil).intactLength == 14)
        #expect(throws: AuditKeyError.wrongServerKey) {
            _ = try PostgresPermissionStore.open(connectionString: database, keyring: .random(), poolSize: 1)
        }
    }
}
