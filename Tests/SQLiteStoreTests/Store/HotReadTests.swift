import Foundation
import PermissionDomain
@testable import SQLiteStore
import Testing

/// The hot path's store reads: the record and the user's settings in one statement, and the
/// policy query skipped for services no policy names (`PolicyServices`).
@Suite struct HotReadTests {
    @Test func recordAndSettingsComeTogetherInEveryCombination() throws {
        let fixture = try StoreFixture()
        let (both, recordOnly, settingsOnly, neither) = (try user("both"), try user("record"), try user("settings"), try user("none"))
        let maps = try app("com.example.maps")
        @Sendable func record(_ u: UserID) -> StoredAuthorization {
            StoredAuthorization(
                user: u, app: maps, service: .location, status: .authorized, level: .always, reason: .userConsent,
                purpose: try? purpose("Nearby stops."), declinedLevels: [.whenInUse], updatedAt: epoch, version: 3)
        }
        try fixture.store.write { writer in
            for u in [both, recordOnly] { try writer.save(record(u)) }
            for u in [both, settingsOnly] {
                try writer.save(UserSettings(user: u, locationServicesEnabled: false, updatedAt: epoch))
            }
        }
        try fixture.store.read { (reader: any PermissionReader) throws in
            for u in [both, recordOnly, settingsOnly, neither] {
                let together = try reader.authorizationAndSettings(user: u, app: maps, service: .location, withSettings: true)
                #expect(together.stored == (try reader.authorization(user: u, app: maps, service: .location)), "\(u)")
                #expect(together.settings == (try reader.userSettings(u)), "\(u)")
                let alone = try reader.authorizationAndSettings(user: u, app: maps, service: .location, withSettings: false)
                #expect(alone.stored == together.stored && alone.settings == nil, "\(u)")
            }
            #expect(try reader.authorizationAndSettings(user: both, app: maps, service: .location, withSettings: true).stored == record(both))
        }
    }

    @Test func policiesApplyWhetherStoredBeforeOpeningOrWhileServing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("permissions.sqlite")
        let maps = try app("com.example.maps")
        let u1 = try user("u1")
        let cameraPolicy = try Policy(
            id: PolicyID("cam"), service: .camera, app: nil, user: nil, effect: .restrict, level: nil, updatedAt: epoch)
        do {
            let store = try SQLitePermissionStore.open(path: path)
            #expect(try store.read { try $0.policies(service: .camera, app: maps, user: u1) } == [])
            try store.write { try $0.save(cameraPolicy) }  // while serving
            #expect(try store.read { try $0.policies(service: .camera, app: maps, user: u1) } == [cameraPolicy])
            #expect(try store.read { try $0.policies(service: .contacts, app: maps, user: u1) } == [])
        }
        // Written before this store opened: loaded from the file.
        let reopened = try SQLitePermissionStore.open(path: path)
        #expect(try reopened.read { try $0.policies(service: .camera, app: maps, user: u1) } == [cameraPolicy])
        // A service whose policies are all deleted reads as having none.
        #expect(try reopened.write { try $0.deletePolicy(id: cameraPolicy.id) })
        #expect(try reopened.read { try $0.policies(service: .camera, app: maps, user: u1) } == [])
    }

    @Test func aRolledBackPolicyLeavesNothingBehindButASpareQuery() throws {
        let fixture = try StoreFixture()
        let maps = try app("com.example.maps")
        let policy = try Policy(
            id: PolicyID("mic"), service: .microphone, app: maps, user: nil, effect: .restrict, level: nil, updatedAt: epoch)
        #expect(throws: (any Error).self) {
            try fixture.store.write { writer in
                try writer.save(policy)
                throw CancellationError()  // the write is rolled back
            }
        }
        #expect(try fixture.store.read { try $0.policies(service: .microphone, app: maps, user: try user("u1")) } == [])
        #expect(try fixture.store.read { try $0.policy(id: policy.id) } == nil)
    }

    @Test func policyServicesIsASupersetThatOnlyGrows() {
        let services = PolicyServices([])
        #expect(!services.mayHavePolicies("camera"))
        services.add("camera")
        services.add("camera")
        #expect(services.mayHavePolicies("camera"))
        #expect(!services.mayHavePolicies("contacts"))
        #expect(PolicyServices(["photos"]).mayHavePolicies("photos"))
    }

    /// Status and reason are matched on the column bytes: every value reads back, and a value
    /// changed outside the program (here a reason no version wrote) is reported as corruption.
    @Test func everyStatusAndReasonReadsBackAndStrangersAreCorruption() throws {
        let fixture = try StoreFixture()
        let maps = try app("com.example.maps")
        let stored: [(AuthorizationStatus, Reason)] = [
            (.notDetermined, .default), (.denied, .userConsent), (.authorized, .policy), (.authorized, .servicesDisabled),
            (.notDetermined, .expired),
        ] + Reason.allCases.map { (.denied, $0) }
        for (index, (status, reason)) in stored.enumerated() {
            let record = StoredAuthorization(
                user: try user("u\(index)"), app: maps, service: .camera, status: status,
                level: status == .authorized ? .full : nil, reason: reason, updatedAt: epoch, version: 1)
            try fixture.store.write { try $0.save(record) }
            let back = try fixture.store.read { try $0.authorization(user: try user("u\(index)"), app: maps, service: .camera) }
            #expect(back?.status == status && back?.reason == reason, "\(status) \(reason)")
        }
        try fixture.store.pool.write { try $0.execute("UPDATE authorizations SET reason = 'userConsentX', version = version + 1 WHERE user = 'u1'") }
        let error = #expect(throws: SQLiteError.self) {
            try fixture.store.read { try $0.authorization(user: try user("u1"), app: maps, service: .camera) }
        }
        #expect(error?.description.contains("authorizations.reason") == true)
    }
}
