import PermissionDomain
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Both stores' upsert of a record sets `StoredAuthorization.upsertAssignments` on a conflict: it
/// must name every column of the table but the key, so that a column added by a migration is not
/// left at its old value when a record changes. (`PostgresPermissionStoreTests` checks the same
/// against PostgreSQL's table.)
@Suite struct UpsertAssignmentsTests {
    @Test func theUpsertSetsEveryColumnButTheKey() throws {
        let fixture = try StoreFixture()
        let columns = try fixture.store.pool.read { database in
            try database.withStatement("SELECT name FROM pragma_table_info('authorizations') WHERE pk = 0") { statement in
                var names: [String] = []
                while try statement.step() { names.append(statement.string(at: 0) ?? "") }
                return names
            }
        }
        let assigned = try #require(StoredAuthorization.upsertAssignedColumns)
        #expect(assigned.count == Set(assigned).count, "a column set twice")
        #expect(Set(assigned) == Set(columns))
    }
}
