import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// The audit table's triggers refuse what the store never does (the conformance suite's
/// AuditLogTests cover what it does, on both stores).
@Suite struct AuditAppendOnlyTests {
    @Test func entriesCanNeverBeUpdatedOrDeleted() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(.change(try user("u1"), try app("com.a.b"), .camera)) }
        for sql in [
            "UPDATE audit SET action = 'x'", "DELETE FROM audit",
            "INSERT INTO audit (seq, at, actor_role, action) VALUES (5, 0, 'r', 'a')",
        ] {
            let error = #expect(throws: SQLiteError.self) {
                try fixture.store.pool.write { try $0.execute(sql) }
            }
            #expect(error?.isConstraintViolation == true, "\(sql)")
        }
        #expect(try fixture.store.read { try $0.audit(query: AuditQuery()) }.count == 1)
    }
}
