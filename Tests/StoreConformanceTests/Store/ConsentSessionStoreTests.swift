import Foundation
import PermissionDomain
import Testing

/// The consent sessions' store requirements (SPEC §10) on both stores: the round trip of every
/// field, the three lookups, the upsert of the exchange and the end, and the rules the schema
/// keeps (a token hash is unique; user, token and creation never change, the end only moves later).
@Suite struct ConsentSessionStoreTests {
    static func bytes(_ seed: UInt8) -> [UInt8] { (0..<32).map { seed &+ UInt8($0) } }
    static let t0 = Date(millisecondsSince1970: 1_795_341_600_123)

    static func session(_ id: String = "cs_0123456789abcdef", user: String = "u42", token: UInt8 = 1) throws -> ConsentSession {
        try ConsentSession(
            id: ConsentSessionID(id), user: UserID(user), tokenHash: bytes(token), createdAt: t0,
            expiresAt: t0.addingTimeInterval(900))
    }

    @Test(arguments: StoreKind.allCases) func roundTripAndLookups(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let store = fixture.store
        let fresh = try Self.session()
        let other = try Self.session("cs_fedcba9876543210", user: "u43", token: 100)
        try store.write { writer in
            try writer.save(fresh)
            try writer.save(other)
        }
        try store.read { (reader: any PermissionReader) throws in
            #expect(try reader.consentSession(id: fresh.id) == fresh)
            #expect(try reader.consentSession(tokenHash: Self.bytes(1)) == fresh)
            #expect(try reader.consentSession(tokenHash: Self.bytes(100)) == other)
            #expect(try reader.consentSession(secretHash: Self.bytes(1)) == nil, "a token hash is no secret hash")
            #expect(try reader.consentSession(id: ConsentSessionID("cs_0000000000000000")) == nil)
            #expect(try reader.consentSession(tokenHash: Self.bytes(7)) == nil)
        }

        var exchanged = fresh
        exchanged.secretHash = Self.bytes(50)
        exchanged.csrfHash = Self.bytes(60)
        exchanged.exchangedAt = Self.t0.addingTimeInterval(1.5)
        let exchangedRow = exchanged
        try store.write { try $0.save(exchangedRow) }
        try store.read { (reader: any PermissionReader) throws in
            let found = try #require(try reader.consentSession(secretHash: Self.bytes(50)))
            #expect(found == exchanged)
            #expect(found.csrfHash == Self.bytes(60) && found.exchangedAt == Self.t0.addingTimeInterval(1.5))
            #expect(try reader.consentSession(tokenHash: Self.bytes(1)) == exchanged)
        }

        var ended = exchanged
        ended.endedAt = Self.t0.addingTimeInterval(60)
        let endedRow = ended
        try store.write { try $0.save(endedRow) }
        #expect(try store.read { try $0.consentSession(id: fresh.id) } == ended)
        #expect(try store.read { try $0.consentSession(id: other.id) } == other, "the other session is unchanged")
    }

    @Test(arguments: StoreKind.allCases) func aTokenHashIsUniqueAndNothingIsWrittenOnConflict(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        try fixture.store.write { try $0.save(try Self.session()) }
        let thief = try Self.session("cs_1111111111111111", user: "u43", token: 1)
        let error = #expect(throws: (any Error).self) { try fixture.store.write { try $0.save(thief) } }
        #expect(StoreUnderTest.isUniqueViolation(error))
        #expect(try fixture.store.read { try $0.consentSession(id: thief.id) } == nil)
    }

    @Test(arguments: StoreKind.allCases) func userTokenAndCreationNeverChangeAndTheEndOnlyMovesLater(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let original = try Self.session()
        try fixture.store.write { try $0.save(original) }
        // An upsert never touches the user, token or creation; it moves the end ("Stay Signed In").
        let moved = try ConsentSession(
            id: original.id, user: UserID("u99"), tokenHash: Self.bytes(9), createdAt: Self.t0.addingTimeInterval(5),
            expiresAt: original.expiresAt.addingTimeInterval(600))
        try fixture.store.write { try $0.save(moved) }
        let later = original.ending(at: original.expiresAt.addingTimeInterval(600))
        #expect(try fixture.store.read { try $0.consentSession(id: original.id) } == later)
        // An end moved earlier is refused by the schema itself, and nothing is written.
        let earlier = try ConsentSession(
            id: original.id, user: original.user, tokenHash: original.tokenHash, createdAt: original.createdAt,
            expiresAt: original.expiresAt)
        let error = #expect(throws: (any Error).self) { try fixture.store.write { try $0.save(earlier) } }
        #expect(StoreUnderTest.message(of: error)?.contains("its end only moves later") == true, "\(String(describing: error))")
        #expect(try fixture.store.read { try $0.consentSession(id: original.id) } == later)
    }

    @Test(arguments: StoreKind.allCases) func sessionsAreNoAuditEntries(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let before = try fixture.store.read { try $0.lastAuditSeq() }
        try fixture.store.write { try $0.save(try Self.session()) }
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == before, "saving a session row appends nothing")
    }
}
