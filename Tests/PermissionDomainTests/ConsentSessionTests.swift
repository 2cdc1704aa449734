import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Consent sessions as values (SPEC §10), and the `user` role: pure, with fixed times.
@Suite struct ConsentSessionTests {
    static func bytes(_ seed: UInt8) -> [UInt8] { (0..<32).map { seed &+ UInt8($0) } }
    static let id = try! ConsentSessionID("cs_0123456789abcdef")

    static func session(exchangedAt: Date? = nil, endedAt: Date? = nil) throws -> ConsentSession {
        try ConsentSession(
            id: id, user: Fixtures.user, tokenHash: bytes(1), secretHash: exchangedAt.map { _ in bytes(2) },
            csrfHash: exchangedAt.map { _ in bytes(3) }, createdAt: Fixtures.t0,
            expiresAt: Fixtures.t0.addingTimeInterval(900), exchangedAt: exchangedAt, endedAt: endedAt)
    }

    @Test func idsAreCsAnd16Hex() {
        #expect(ConsentSessionID.isValid("cs_0123456789abcdef"))
        for bad in [
            "", "cs_", "cs_0123456789abcde", "cs_0123456789abcdef0", "cs_0123456789ABCDEF", "ck_0123456789abcdef",
            "0123456789abcdef", "cs-0123456789abcdef", "cs_0123456789abcdeg",
        ] {
            #expect(!ConsentSessionID.isValid(bad), "\(bad)")
            #expect(throws: PermissionError.self) { try ConsentSessionID(bad) }
        }
    }

    @Test func aSessionIsLiveFromItsExchangeUntilItExpiresOrEnds() throws {
        let expires = Fixtures.t0.addingTimeInterval(900)
        let fresh = try Self.session()
        #expect(!fresh.isLive(at: Fixtures.t0), "not before the exchange")
        let exchanged = try Self.session(exchangedAt: Fixtures.t0.addingTimeInterval(5))
        let clock = ManualClock(Fixtures.t0.addingTimeInterval(5))
        #expect(exchanged.isLive(at: clock.now))
        clock.set(expires.addingTimeInterval(-0.001))
        #expect(exchanged.isLive(at: clock.now))
        clock.advance(by: 0.001)
        #expect(!exchanged.isLive(at: clock.now), "over at expiresAt")
        let ended = try Self.session(exchangedAt: Fixtures.t0.addingTimeInterval(5), endedAt: Fixtures.t0.addingTimeInterval(6))
        #expect(!ended.isLive(at: Fixtures.t0.addingTimeInterval(7)))
        #expect(exchanged.actor == Actor(keyId: "cs_0123456789abcdef", role: "user"))
    }

    @Test func invalidSessionsAreRefused() {
        #expect(throws: PermissionError.invalidArgument(field: "tokenHash", why: "must be 32 bytes")) {
            try ConsentSession(
                id: Self.id, user: Fixtures.user, tokenHash: [1, 2], createdAt: Fixtures.t0,
                expiresAt: Fixtures.t0.addingTimeInterval(1))
        }
        #expect(throws: PermissionError.self, "an exchange time without the hashes") {
            try ConsentSession(
                id: Self.id, user: Fixtures.user, tokenHash: Self.bytes(1), createdAt: Fixtures.t0,
                expiresAt: Fixtures.t0.addingTimeInterval(1), exchangedAt: Fixtures.t0)
        }
        #expect(throws: PermissionError.self, "hashes without an exchange time") {
            try ConsentSession(
                id: Self.id, user: Fixtures.user, tokenHash: Self.bytes(1), secretHash: Self.bytes(2),
                csrfHash: Self.bytes(3), createdAt: Fixtures.t0, expiresAt: Fixtures.t0.addingTimeInterval(1))
        }
        #expect(throws: PermissionError.self, "ending before beginning") {
            try ConsentSession(
                id: Self.id, user: Fixtures.user, tokenHash: Self.bytes(1), createdAt: Fixtures.t0, expiresAt: Fixtures.t0)
        }
    }

    @Test func equalityComparesEveryHash() throws {
        let a = try Self.session(exchangedAt: Fixtures.t0)
        var b = a
        #expect(a == b)
        b.csrfHash = Self.bytes(9)
        #expect(a != b)
        b = a
        b.secretHash = Self.bytes(9)
        #expect(a != b)
    }

    /// The `user` role is never a key's, and holds only its own user's side, never a `/v1`
    /// operator's or app's right.
    @Test func theUserRole() throws {
        #expect(Role.keyRoles == [.admin, .consent, .app, .auditor])
        #expect(
            throws: PermissionError.invalidCombination(field: "role", why: "user is a consent session's role, never an API key's")
        ) {
            try APIKey(
                id: KeyID("0123456789abcdef"), role: .user, app: nil, name: "u", secretHash: Self.bytes(1),
                createdAt: Fixtures.t0)
        }
        let own: Set<AccessRight> = [
            .readAuthorization, .listAuthorizations, .setAuthorization, .readPrompts, .decide, .readSettings,
            .writeSettings, .ownHistory, .consentSession, .export,
        ]
        for right in AccessRight.allCases {
            let expected: AccessGrant = right == .open ? .granted : own.contains(right) ? .ownUser : .denied
            #expect(AccessMatrix.grant(.user, right) == expected, "\(right)")
        }
        for event in LifecycleEvent.allCases { #expect(!AccessMatrix.mayPost(event, as: .user)) }
        // Making and ending consent links is for operators and the consent backend only.
        #expect(AccessMatrix.grant(.admin, .consentSessions) == .granted)
        #expect(AccessMatrix.grant(.consent, .consentSessions) == .granted)
        #expect(AccessMatrix.grant(.app, .consentSessions) == .denied)
        #expect(AccessMatrix.grant(.auditor, .consentSessions) == .denied)
        for role in Role.keyRoles where role != .admin {
            #expect(AccessMatrix.grant(role, .ownHistory) == .denied && AccessMatrix.grant(role, .consentSession) == .denied)
        }
    }
}
