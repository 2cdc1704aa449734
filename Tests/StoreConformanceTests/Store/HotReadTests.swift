import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The hot path's store reads on both stores: the record and the user's settings in one
/// lookup, and the policies that apply, whenever they were written.
@Suite struct HotReadTests {
    @Test(arguments: StoreKind.allCases) func recordAndSettingsComeTogetherInEveryCombination(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let (both, recordOnly, settingsOnly, neither) = (
            try user("both"), try user("record"), try user("settings"), try user("none")
        )
        let maps = try app("com.example.maps")
        @Sendable func record(_ u: UserID) -> StoredAuthorization {
            StoredAuthorization(
                user: u, app: maps, service: .location, status: .authorized, level: .always, reason: .userConsent,
                purpose: try? purpose("Nearby stops."), declinedLevels: [.whenInUse], buttonConfirmed: true, updatedAt: epoch,
                version: 3)
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
            #expect(
                try reader.authorizationAndSettings(user: both, app: maps, service: .location, withSettings: true).stored
                    == record(both))
        }
    }

    @Test(arguments: StoreKind.allCases) func policiesApplyWhetherStoredBeforeOpeningOrWhileServing(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let maps = try app("com.example.maps")
        let u1 = try user("u1")
        let cameraPolicy = try Policy(
            id: PolicyID("cam"), service: .camera, app: nil, user: nil, effect: .restrict, level: nil, updatedAt: epoch)
        let store = fixture.store
        #expect(try store.read { try $0.policies(service: .camera, app: maps, user: u1) } == [])
        try store.write { try $0.save(cameraPolicy) }  // while serving
        #expect(try store.read { try $0.policies(service: .camera, app: maps, user: u1) } == [cameraPolicy])
        #expect(try store.read { try $0.policies(service: .contacts, app: maps, user: u1) } == [])
        // Written before this store opened (read from the file or the database).
        let reopened = try fixture.openAgain()
        #expect(try reopened.read { try $0.policies(service: .camera, app: maps, user: u1) } == [cameraPolicy])
        // A service whose policies are all deleted reads as having none.
        #expect(try reopened.write { try $0.deletePolicy(id: cameraPolicy.id) })
        #expect(try reopened.read { try $0.policies(service: .camera, app: maps, user: u1) } == [])
        // The first store sees the other's delete: at once on PostgreSQL, within about 100 ms on
        // SQLite (a reused read snapshot lasts until the file's data_version changes).
        let deadline = Date() + 10
        while try !store.read({ try $0.policies(service: .camera, app: maps, user: u1) }).isEmpty, Date() < deadline {
            usleep(10_000)
        }
        #expect(try store.read { try $0.policies(service: .camera, app: maps, user: u1) } == [], "deleted by the other")
    }

    @Test(arguments: StoreKind.allCases) func aRolledBackPolicyLeavesNothingBehindButASpareQuery(_ kind: StoreKind) throws {
        let fixture = try kind.open()
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

    /// Every status and every reason reads back as it was saved.
    @Test(arguments: StoreKind.allCases) func everyStatusAndReasonReadsBack(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let maps = try app("com.example.maps")
        let stored: [(AuthorizationStatus, Reason)] =
            [
                (.notDetermined, .default), (.denied, .userConsent), (.authorized, .policy), (.authorized, .servicesDisabled),
                (.notDetermined, .expired),
            ] + Reason.allCases.map { (.denied, $0) }
        for (index, (status, reason)) in stored.enumerated() {
            let record = StoredAuthorization(
                user: try user("u\(index)"), app: maps, service: .camera, status: status,
                level: status == .authorized ? .full : nil, reason: reason, updatedAt: epoch, version: 1)
            try fixture.store.write { try $0.save(record) }
            let back = try fixture.store.read { try $0.authorization(user: try user("u\(index)"), app: maps, service: .camera) }
            #expect(back == record, "\(status) \(reason)")
        }
    }
}
