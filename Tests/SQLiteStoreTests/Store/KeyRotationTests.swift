import AuditKeys
import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import Testing

@testable import SQLiteStore

/// `rotateAuditServerKey` on a file: every user's key wrapped under the new server key, the
/// entries readable with it alone, one `audit.key.rotated` entry; and a store still open on
/// the old key (a second process where `flock` holds nothing back) refuses to make a new
/// user's key under it.
@Suite struct KeyRotationTests {
    let consent = Actor(keyId: "consent-1", role: "consent")

    @Test func aRotationRewrapsEveryKeyAndAStoreOnTheOldKeyMakesNoNewOne() throws {
        let fixture = try StoreFixture()  // opened on AuditKeyring.forTests
        let stale = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let scanner = try app("com.example.scanner")
        for name in ["u1", "u2"] {
            _ = try stale.setAuthorization(
                user: try user(name), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
                requestId: name)
        }
        let newKeyring = AuditKeyring.random()
        let rotating = try SQLitePermissionStore.open(path: fixture.store.path, keyring: .forTests)
        var reports: [(Int64, Int64)] = []
        #expect(try rotating.rotateAuditServerKey(to: newKeyring) { reports.append(($0, $1)) } == 2)
        #expect(reports.map(\.0) == [2] && reports.map(\.1) == [2])
        #expect(throws: AuditKeyError.sameServerKey) {
            try SQLitePermissionStore.open(path: fixture.store.path, keyring: newKeyring)
                .rotateAuditServerKey(to: newKeyring) { _, _ in }
        }

        // The store still on the old key: a new user's key is refused, nothing written.
        let before = try rotating.read { try $0.lastAuditSeq() }
        #expect {
            _ = try stale.setAuthorization(
                user: try user("u3"), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
                requestId: "u3")
        } throws: { error in
            guard case PermissionError.unavailable(let why, _) = error else { return false }
            return why.contains("audit server key was replaced")
        }
        #expect(try rotating.read { try $0.lastAuditSeq() } == before)

        // The old key opens the file no more; the new one reads every entry, and the rotation's.
        #expect(throws: AuditKeyError.wrongServerKey) {
            try SQLitePermissionStore.open(path: fixture.store.path, keyring: AuditKeyring.forTests)
        }
        let current = try SQLitePermissionStore.open(path: fixture.store.path, keyring: newKeyring)
        let entries = try current.read { try $0.audit(query: AuditQuery(limit: 100)) }
        #expect(entries.compactMap(\.user?.rawValue) == ["u1", "u2"])
        #expect(entries.last?.action == .auditKeyRotated && entries.last?.detail == ["subjects": "2"])
        #expect(entries.last?.actor == .system)
        let fresh = PermissionService(store: current, clock: ManualClock(epoch))
        _ = try fresh.setAuthorization(
            user: try user("u3"), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
            requestId: "u3")
        #expect(try current.read { try $0.audit(query: AuditQuery(user: try user("u3"), limit: 10)) }.count == 1)
    }
}
