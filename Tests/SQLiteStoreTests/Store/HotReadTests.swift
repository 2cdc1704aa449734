import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// SQLite's hot path: the policy query skipped for services no policy names (`PolicyServices`),
/// and column values matched on their bytes (the conformance suite's HotReadTests check the
/// reads on both stores).
@Suite struct HotReadTests {
    @Test func policyServicesIsASupersetThatOnlyGrows() {
        let services = PolicyServices([])
        #expect(!services.mayHavePolicies("camera"))
        services.add("camera")
        services.add("camera")
        #expect(services.mayHavePolicies("camera"))
        #expect(!services.mayHavePolicies("contacts"))
        #expect(PolicyServices(["photos"]).mayHavePolicies("photos"))
    }

    /// Status and reason are matched on the column bytes (the conformance suite reads every
    /// value back): a value changed outside the program (here a reason no version wrote) is
    /// reported as corruption.
    @Test func aStrangeReasonIsCorruption() throws {
        let fixture = try StoreFixture()
        let maps = try app("com.example.maps")
        let record = StoredAuthorization(
            user: try user("u1"), app: maps, service: .camera, status: .denied, reason: .userSet, updatedAt: epoch, version: 1)
        try fixture.store.write { try $0.save(record) }
        #expect(try fixture.store.read { try $0.authorization(user: try user("u1"), app: maps, service: .camera) } == record)
        try fixture.store.pool.write {
            try $0.execute("UPDATE authorizations SET reason = 'userConsentX', version = version + 1 WHERE user = 'u1'")
        }
        let error = #expect(throws: SQLiteError.self) {
            try fixture.store.read { try $0.authorization(user: try user("u1"), app: maps, service: .camera) }
        }
        #expect(error?.description.contains("authorizations.reason") == true)
    }
}
