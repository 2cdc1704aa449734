import Dispatch
import Foundation
import PermissionDomain
import PermissionWire
import Synchronization
import Testing

/// `GET /v1/audit/verify` reads and hashes the whole log on a worker thread: one runs at a
/// time, and a second meanwhile is `503` with `Retry-After`, nothing read.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct AuditVerifyConcurrencyTests {
    @Test func aSecondVerificationWhileOneRunsIs503() throws {
        let (app, store) = try TestApp.serving(through: GatedVerifierStore.init)
        try app.registerApp()
        let first = Mutex<TestResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            first.withLock { $0 = try? app.send(.get, "/v1/audit/verify") }
            done.signal()
        }
        #expect(store.entered.wait(timeout: .now() + 10) == .success, "the first verification started")

        let second = try app.send(.get, "/v1/audit/verify")
        #expect(second.status == 503)
        #expect(second.problemType == .unavailable)
        #expect(second.headers["Retry-After"] == "5")
        #expect(store.verifications.withLock { $0 } == 1, "the second read nothing")

        store.gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let answered = try #require(first.withLock { $0 })
        #expect(answered.status == 200)
        #expect(try answered.decode(AuditVerification.self).valid)
        // The place is free again.
        store.gate.signal()
        #expect(try app.send(.get, "/v1/audit/verify").status == 200)
    }
}

/// The store as it is, whose chain verification waits at a gate once it has started (and is
/// counted), so that a test can send another request while one runs.
final class GatedVerifierStore: ForwardingStore, AuditChainVerifier, @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let verifications = Mutex(0)

    func verifyAuditChain(batchSize: Int, progress: (@Sendable (Int64, Int64) -> Void)?) throws -> AuditChainReport {
        verifications.withLock { $0 += 1 }
        entered.signal()
        _ = gate.wait(timeout: .now() + 20)
        return try verifier.verifyAuditChain(batchSize: batchSize, progress: progress)
    }
    func unauditedKeys() throws -> [UnauditedKey] { try verifier.unauditedKeys() }
    private var verifier: any AuditChainVerifier { base as! any AuditChainVerifier }
}
