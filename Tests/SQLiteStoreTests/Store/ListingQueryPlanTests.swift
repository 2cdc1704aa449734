import Foundation
import PermissionDomain
import Testing

@testable import SQLiteStore

/// Every filtered listing of authorizations reads an index (or the primary key) in
/// (user, app, service) order: no sort of the matching rows, with or without a cursor, before
/// and after `ANALYZE`. A listing that sorted would read every matching row for each page.
@Suite struct ListingQueryPlanTests {
    /// 40 users x 20 apps x 3 services, in every status, so that `ANALYZE` has something to weigh.
    private static func seed(_ store: SQLitePermissionStore) throws {
        try store.pool.writer.writeWithoutTransaction { database in
            try database.execute(
                """
                BEGIN;
                INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason,
                                            purpose, declined_levels, updated_at, version)
                    WITH RECURSIVE u(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM u WHERE i + 1 < 40),
                                   a(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM a WHERE j + 1 < 20),
                                   s(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM s WHERE k + 1 < 3)
                    SELECT 'u' || i, 'app' || j, 'service' || k,
                           CASE (i + j + k) % 3 WHEN 0 THEN 'denied' WHEN 1 THEN 'authorized' ELSE 'notDetermined' END,
                           NULL, 0, 0, NULL, 'userSet', NULL, '', 1795000000000, 1
                    FROM u, a, s;
                COMMIT;
                """)
        }
    }

    /// The plan's lines for the listing matching `filter`.
    private static func plan(
        _ store: SQLitePermissionStore, _ filter: AuthorizationFilter, after: AuthorizationKey?
    ) throws
        -> [String]
    {
        let (sql, values) = StoreSession.listing(matching: filter, after: after)
        return try store.pool.read { database in
            try database.withStatement("EXPLAIN QUERY PLAN " + sql) { statement in
                statement.bind(values + [.integer(100)])
                var lines: [String] = []
                while try statement.step() { lines.append(statement.string(at: 3) ?? "") }
                return lines
            }
        }
    }

    /// Every subset of the four filters.
    private static var filters: [AuthorizationFilter] {
        (0..<16).map { bits in
            AuthorizationFilter(
                user: bits & 1 != 0 ? UserID(trusted: "u3") : nil, app: bits & 2 != 0 ? AppID(trusted: "app4") : nil,
                service: bits & 4 != 0 ? ServiceID(trusted: "service1") : nil, status: bits & 8 != 0 ? .denied : nil)
        }
    }

    @Test(arguments: [false, true]) func noListingSortsItsRows(analyzed: Bool) throws {
        let fixture = try StoreFixture()
        try Self.seed(fixture.store)
        if analyzed { try fixture.store.pool.writer.writeWithoutTransaction { try $0.execute("ANALYZE") } }
        let cursor = AuthorizationKey(
            user: UserID(trusted: "u1"), app: AppID(trusted: "app1"), service: ServiceID(trusted: "service1"))
        for filter in Self.filters {
            for after in [nil, cursor] {
                let plan = try Self.plan(fixture.store, filter, after: after)
                #expect(!plan.isEmpty)
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(filter), after \(String(describing: after)): \(plan)")
            }
        }
    }

    /// The filters with an index of their own seek it; app and service together read the app's
    /// index (the app-and-service index went, see migration 9), not the service's.
    @Test(arguments: [false, true]) func eachIndexedFilterSeeksItsIndex(analyzed: Bool) throws {
        let fixture = try StoreFixture()
        try Self.seed(fixture.store)
        if analyzed { try fixture.store.pool.writer.writeWithoutTransaction { try $0.execute("ANALYZE") } }
        func uses(_ filter: AuthorizationFilter) throws -> String {
            try Self.plan(fixture.store, filter, after: nil).joined(separator: "; ")
        }
        let app = AppID(trusted: "app4")
        let service = ServiceID(trusted: "service1")
        #expect(try uses(AuthorizationFilter(app: app)).contains("authorizations_by_app (app=?)"))
        #expect(try uses(AuthorizationFilter(app: app, status: .denied)).contains("authorizations_by_app (app=?)"))
        let appAndService = try uses(AuthorizationFilter(app: app, service: service))
        #expect(appAndService.contains("authorizations_by_app (app=?)"), "\(appAndService)")
        #expect(
            try uses(AuthorizationFilter(app: app, service: service, status: .denied)).contains(
                "authorizations_by_app_service_status (app=? AND service=? AND status=?)"))
        #expect(try uses(AuthorizationFilter(service: service)).contains("authorizations_by_service (service=?)"))
        #expect(try uses(AuthorizationFilter(user: UserID(trusted: "u3"))).contains("PRIMARY KEY (user=?)"))
    }
}
