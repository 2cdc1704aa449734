import Dispatch
import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

@testable import SQLiteStore

/// A settings change submitted without a waiting thread (on a store that can) does what the
/// blocking one does: the same authorization, audit entry and errors.
@Suite struct SubmittedChangeTests {
    let consent = Actor(keyId: "consent-1", role: "consent")

    private static func submitted(
        _ service: PermissionService, user: UserID, app: AppID, status: AuthorizationStatus, ifMatch: ETagCondition? = nil
    ) throws -> Result<Authorization, any Error>? {
        let outcome = Mutex<Result<Authorization, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let submitted = service.setAuthorization(
            user: user, app: app, service: .camera, status: status, level: status == .authorized ? .full : nil,
            ifMatch: ifMatch, actor: Actor(keyId: "consent-1", role: "consent"), requestId: "r"
        ) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard submitted else { return nil }
        #expect(done.wait(timeout: .now() + 20) == .success)
        return outcome.withLock { $0 }
    }

    @Test(arguments: StoreKind.allCases) func aSubmittedChangeMatchesTheBlockingOne(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let service = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let a = try app("com.example.scanner")
        guard let result = try Self.submitted(service, user: try user("u1"), app: a, status: .denied) else {
            // A store that cannot submit says so and does nothing.
            #expect(!(fixture.store is any SubmittingPermissionStore))
            #expect(try fixture.store.read { try $0.lastAuditSeq() } == 0)
            return
        }
        #expect(fixture.store is any SubmittingPermissionStore)
        let viaSubmit = try result.get()
        let viaBlocking = try service.setAuthorization(
            user: try user("u2"), app: a, service: .camera, status: .denied, level: nil, actor: consent, requestId: "r")
        #expect(viaSubmit.status == .denied && viaBlocking.status == .denied)
        #expect(viaSubmit.reason == viaBlocking.reason)
        #expect(viaSubmit.version == viaBlocking.version)
        // Each wrote its record and one audit entry, readable at once.
        #expect(try service.authorization(user: try user("u1"), app: a, service: .camera).status == .denied)
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == 2)
        // A failed precondition is the blocking form's error, and changes nothing.
        let stale = try #require(
            try Self.submitted(
                service, user: try user("u1"), app: a, status: .notDetermined, ifMatch: .tags(["\"stale\""])))
        let error = #expect(throws: PermissionError.self) { try stale.get() }
        guard case .preconditionFailed = error else {
            Issue.record("expected preconditionFailed, got \(String(describing: error))")
            return
        }
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == 2)
        // A submitted revocation: denied, audited.
        let revoked = Mutex<Result<Authorization, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        #expect(
            service.revoke(user: try user("u2"), app: a, service: .camera, actor: consent, requestId: "r4") { result in
                revoked.withLock { $0 = result }
                done.signal()
            })
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(try revoked.withLock { $0 }?.get().status == .denied)
    }
}
