import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import TestThreads
import Testing

/// An app's own feed (``AuditQuery/affecting``) on PostgreSQL reads the audit log through its
/// indexes, as on SQLite (`AuditQueryPlanTests`): no sequential scan of `audit` (it may hold 10
/// million entries) or of the tables the relation of a user to the app is looked up in, with
/// the plan PostgreSQL makes for the values and the generic one a cached statement may switch
/// to. On 200,000 analyzed entries, so that the planner weighs real statistics.
@Suite(.serialized, .timeLimit(.minutes(2)), .blocksItsThread) struct PostgresAuditPlanTests {
    private static func seed(_ database: String) throws {
        _ = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        try PostgresConnection(database).execute(
            """
            ALTER TABLE audit DISABLE TRIGGER audit_seq_gap_free;
            INSERT INTO audit (seq, at, actor_role, action, user_id, app, service, detail)
                SELECT i, 1795000000000 + i, 'admin',
                       CASE i % 10 WHEN 1 THEN 'policy.put' WHEN 2 THEN 'settings.changed' WHEN 3 THEN 'service.put'
                                   WHEN 4 THEN 'user.erased' ELSE 'authorization.set' END,
                       CASE WHEN i % 10 IN (3, 4) THEN NULL ELSE 'p_' || (i % 2000) END,
                       CASE WHEN i % 10 IN (1, 2, 3, 4) THEN NULL ELSE 'app' || (i % 50) END,
                       CASE WHEN i % 10 IN (2, 4) THEN NULL ELSE 'camera' END,
                       CASE i % 10 WHEN 4 THEN '{"pseudonym":"p_' || (i % 2000) || '"}' ELSE NULL END
                FROM generate_series(1, 200000) AS i;
            INSERT INTO audit_subjects (user_id, pseudonym, wrapped_key, created_at)
                SELECT 'u' || i, 'p_' || i, 'k', 1795000000000 FROM generate_series(0, 1999) AS i;
            INSERT INTO authorizations (user_id, app, service, status, level, provisional, once, expires_at, reason,
                                        purpose, declined_levels, updated_at, version)
                SELECT 'u' || i, 'app' || j, 'camera', 'denied', NULL, false, false, NULL, 'userSet', NULL, '',
                       1795000000000, 1
                FROM generate_series(0, 1999) AS i, generate_series(0, 49) AS j WHERE (i + j) % 3 = 0;
            INSERT INTO prompts (id, user_id, app, service, kind, requested_level, options, purpose, purpose_key, state,
                                 created_at, expires_at, ended_at, choice)
                SELECT 'pr' || i, 'u' || i, 'app' || (i % 50), 'location', 'request', 'whenInUse', 'allow,deny', 'Why',
                       'NSLocationWhenInUseUsageDescription', CASE WHEN i % 4 = 0 THEN 'pending' ELSE 'answered' END,
                       1795000000000, 1795000600000, NULL, NULL
                FROM generate_series(0, 1999) AS i;
            ANALYZE;
            """)
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread, arguments: ["auto", "force_generic_plan"])
    func noFeedScansTheLogOrTheRelationTables(planCacheMode: String) throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        try Self.seed(database)
        let connection = try PostgresConnection(database)
        try connection.execute("SET plan_cache_mode = \(planCacheMode)")
        let app = AppID(trusted: "app4")
        let queries: [(AuditQuery, String?)] = [
            (AuditQuery(after: 100_000, affecting: app), nil),
            (AuditQuery(after: 0, affecting: app), nil),
            (AuditQuery(user: UserID(trusted: "u3"), after: 100_000, affecting: app), "p_3"),
            (AuditQuery(service: .location, after: 100_000, affecting: app), nil),
            (AuditQuery(after: 100_000, newestFirst: true, affecting: app), nil),
        ]
        for (query, pseudonym) in queries {
            let (sql, values) = PostgresPermissionStore.auditStatement(query, pseudonym: pseudonym, through: 200_000)
            let rows = try connection.query(PreparedStatement("EXPLAIN " + sql), values)
            let plan = try (0..<rows.count).map { try rows[$0].string(at: 0) }
            let text = plan.joined(separator: "\n")
            for table in ["audit", "audit_subjects", "authorizations", "prompts"] {
                #expect(!plan.contains { $0.contains("Seq Scan on \(table) ") }, "\(query):\n\(text)")
            }
            if query.user == nil && query.service == nil {
                #expect(text.contains("audit_by_app") && text.contains("audit_by_action"), "\(text)")
            }
        }
    }
}
