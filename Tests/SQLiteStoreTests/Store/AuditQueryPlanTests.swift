import Foundation
import PermissionDomain
import Testing

@testable import SQLiteStore

/// An app's own feed (``AuditQuery/affecting``) reads the audit log only through indexes in
/// seq order, each scan stopping at the page's limit: the entries naming the app on
/// `audit_by_app` (or the user's on `audit_by_user`), the entries naming no app on
/// `audit_by_action`, and the relation of their user to the app by lookups on
/// `audit_subjects`, `authorizations` and `prompts`, never a scan of any table or a sort (the
/// merged page's seqs are read in order from the list of them). The log may hold
/// 10 million entries, so a scan of `audit` would read them all for each page. Checked before
/// and after `ANALYZE`.
@Suite struct AuditQueryPlanTests {
    /// 4,000 entries: authorization changes of 40 users with 20 apps, policies, settings,
    /// service definitions and erasures among them; subjects, records and pending prompts.
    private static func seed(_ store: SQLitePermissionStore) throws {
        try store.pool.writer.writeWithoutTransaction { database in
            try database.execute(
                """
                BEGIN;
                INSERT INTO audit (seq, at, actor_role, action, user, app, service, detail)
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
                    SELECT i, 1795000000000 + i, 'admin',
                           CASE i % 10 WHEN 1 THEN 'policy.put' WHEN 2 THEN 'settings.changed' WHEN 3 THEN 'service.put'
                                       WHEN 4 THEN 'user.erased' ELSE 'authorization.set' END,
                           CASE WHEN i % 10 IN (3, 4) THEN NULL ELSE 'p_' || (i % 40) END,
                           CASE WHEN i % 10 IN (1, 2, 3, 4) THEN NULL ELSE 'app' || (i % 20) END,
                           CASE WHEN i % 10 IN (2, 4) THEN NULL ELSE 'camera' END,
                           CASE i % 10 WHEN 4 THEN '{"pseudonym":"p_' || (i % 40) || '"}' ELSE NULL END
                    FROM n;
                INSERT INTO audit_subjects (user, pseudonym, wrapped_key, created_at)
                    WITH RECURSIVE u(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM u WHERE i + 1 < 40)
                    SELECT 'u' || i, 'p_' || i, 'k', 1795000000000 FROM u;
                INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason,
                                            purpose, declined_levels, updated_at, version)
                    WITH RECURSIVE u(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM u WHERE i + 1 < 40),
                                   a(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM a WHERE j + 1 < 20)
                    SELECT 'u' || i, 'app' || j, 'camera', 'denied', NULL, 0, 0, NULL, 'userSet', NULL, '',
                           1795000000000, 1
                    FROM u, a WHERE (i + j) % 3 = 0;
                INSERT INTO prompts (id, user, app, service, kind, requested_level, options, purpose, purpose_key, state,
                                     created_at, expires_at, ended_at, choice)
                    WITH RECURSIVE u(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM u WHERE i + 1 < 40)
                    SELECT 'pr' || i, 'u' || i, 'app' || (i % 20), 'location', 'request', 'whenInUse', 'allow,deny',
                           'Why', 'NSLocationWhenInUseUsageDescription', 'pending', 1795000000000, 1795000600000,
                           NULL, NULL
                    FROM u;
                COMMIT;
                """)
        }
    }

    /// The plan's lines for `query`.
    private static func plan(_ store: SQLitePermissionStore, _ query: AuditQuery, pseudonym: String?) throws -> [String] {
        let (sql, values) = StoreSession.auditStatement(query, pseudonym: pseudonym, through: 4_000)
        return try store.pool.read { database in
            try database.withStatement("EXPLAIN QUERY PLAN " + sql) { statement in
                statement.bind(values)
                var lines: [String] = []
                while try statement.step() { lines.append(statement.string(at: 3) ?? "") }
                return lines
            }
        }
    }

    /// An app's feed with each filter that changes its SQL, and an admin's filters for contrast.
    private static var queries: [(AuditQuery, String?)] {
        let app = AppID(trusted: "app4")
        let user = UserID(trusted: "u3")
        return [
            (AuditQuery(after: 100, affecting: app), nil),
            (AuditQuery(after: 100, limit: 1, affecting: app), nil),
            (AuditQuery(user: user, after: 100, affecting: app), "p_3"),
            (AuditQuery(user: UserID(trusted: "u-never"), after: 100, affecting: app), nil),
            (AuditQuery(service: .location, after: 100, affecting: app), nil),
            (AuditQuery(action: .settingsChanged, after: 100, affecting: app), nil),
            (AuditQuery(since: Date(millisecondsSince1970: 1_795_000_000_500), after: 100, affecting: app), nil),
            (AuditQuery(after: 100, newestFirst: true, affecting: app), nil),
            (AuditQuery(app: app, after: 100), nil),
            (AuditQuery(user: user, after: 100), "p_3"),
        ]
    }

    @Test(arguments: [false, true]) func noFeedScansOrSortsTheLog(analyzed: Bool) throws {
        let fixture = try StoreFixture()
        try Self.seed(fixture.store)
        if analyzed { try fixture.store.pool.writer.writeWithoutTransaction { try $0.execute("ANALYZE") } }
        for (query, pseudonym) in Self.queries {
            let plan = try Self.plan(fixture.store, query, pseudonym: pseudonym)
            let text = plan.joined(separator: "; ")
            #expect(!plan.isEmpty)
            // The tables by their names and aliases (`SCAN part0` is a scan's own rows, `SCAN
            // bound` the one seq of the n-th entry naming the app).
            let tables: Set = ["audit", "r", "audit_subjects", "s", "authorizations", "a", "prompts", "p"]
            for line in plan {
                let words = line.split(separator: " ")
                #expect(!(words.first == "SCAN" && words.count > 1 && tables.contains(String(words[1]))), "a scan: \(text)")
            }
            // The merged page comes in seq order from its sorted list of seqs: nothing is sorted.
            #expect(!text.contains("TEMP B-TREE"), "\(text)")
        }
    }

    /// Each scan seeks its index: the app's entries `audit_by_app`, the entries naming no app
    /// `audit_by_action` with their seq range, their users' relation by key lookups.
    @Test(arguments: [false, true]) func eachScanSeeksItsIndex(analyzed: Bool) throws {
        let fixture = try StoreFixture()
        try Self.seed(fixture.store)
        if analyzed { try fixture.store.pool.writer.writeWithoutTransaction { try $0.execute("ANALYZE") } }
        let text = try Self.plan(fixture.store, AuditQuery(after: 100, affecting: AppID(trusted: "app4")), pseudonym: nil)
            .joined(separator: "; ")
        #expect(text.contains("audit_by_app (app=? AND seq>? AND seq<?)"), "\(text)")
        #expect(text.contains("audit_by_action (action=? AND seq>? AND seq<?)"), "\(text)")
        #expect(text.contains("audit_by_user (user=? AND seq<?)"), "an erasure's pseudonym: \(text)")
        #expect(text.contains("(pseudonym=?)"), "\(text)")
        #expect(text.contains("prompts_by_user (user=?)"), "\(text)")
    }
}
