import Dispatch
import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// The statements of a settings write are `StatementSlot`s: found by index on the writer's
/// connection, never built and hashed as text on every write (which cost about 5% of a durable
/// write's instructions, bench/RESULTS.md).
@Suite struct WritePathStatementTests {
    let consent = Actor(keyId: "consent-1", role: "consent")

    /// Text lookups on the writer's connection so far (`pool.write` itself looks up none).
    private static func textLookups(_ fixture: StoreFixture) throws -> Int {
        try fixture.store.pool.write { $0.textLookups }
    }

    @Test func aSettingsWriteLooksUpNoStatementByItsText() throws {
        let fixture = try StoreFixture()
        let service = PermissionService(store: fixture.store, clock: ManualClock(epoch))
        let scanner = try app("com.example.scanner")
        // Authorizing reads the app's purpose strings: registered, with the camera's.
        _ = try service.putApp(
            id: scanner, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": try PurposeString("Scans tickets.")],
            actor: consent, requestId: nil)
        // The first writes prepare their statements; after them the counter must stand still.
        _ = try service.setAuthorization(
            user: try user("u0"), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
            requestId: "r0")
        let before = try Self.textLookups(fixture)

        // Blocking: a new record for a new user (its audit key drawn and stored), then a change.
        _ = try service.setAuthorization(
            user: try user("u1"), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
            requestId: "r1")
        _ = try service.setAuthorization(
            user: try user("u1"), app: scanner, service: .camera, status: .authorized, level: .full, actor: consent,
            requestId: "r2")
        // Submitted, as the server writes: in the writer's batch, each in its own savepoint.
        let done = DispatchSemaphore(value: 0)
        #expect(
            service.setAuthorization(
                user: try user("u2"), app: scanner, service: .camera, status: .denied, level: nil, actor: consent,
                requestId: "r3"
            ) { _ in done.signal() })
        #expect(done.wait(timeout: .now() + 20) == .success)

        #expect(try Self.textLookups(fixture) == before)
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == 5, "the app and every write were made and audited")
        // The counter counts: a statement by its text moves it.
        try fixture.store.pool.write { database in
            try database.withStatement("SELECT count(*) FROM audit") { _ = try $0.step() }
        }
        #expect(try Self.textLookups(fixture) == before + 1)
    }
}
