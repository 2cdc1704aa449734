import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §3 ETag: it names the representation, so it changes with any field, also when only
/// the effective view changes and the version does not.
@Suite struct ETagTests {
    typealias F = Fixtures
    static let stored = F.stored(
        .location, .authorized, .whenInUse, once: true, expiresAt: F.t0.addingTimeInterval(60), reason: .userConsent, version: 7)

    @Test func etagIsAQuotedStrongTagStartingWithTheVersion() {
        let etag = F.plain(Self.stored).etag
        #expect(etag.hasPrefix("\"7-") && etag.hasSuffix("\"") && etag.count == 20)
        #expect(etag.utf8.dropFirst(3).dropLast().allSatisfy { Array("0123456789abcdef".utf8).contains($0) }, "\(etag)")
        #expect(F.plain(Self.stored).etag == etag, "stable for the same representation")
    }

    @Test func policyChangesTheEtagNotTheVersion() {
        let plain = F.plain(Self.stored)
        let restricted = Rules.effective(
            stored: Self.stored, service: F.service(.location), policies: [F.policy("p", .location, .restrict)], settings: nil,
            now: F.t0)
        #expect(restricted.version == plain.version && restricted.etag != plain.etag)
    }

    @Test func locationSwitchChangesTheEtagNotTheVersion() {
        let off = Rules.effective(
            stored: Self.stored, service: F.service(.location), policies: [],
            settings: UserSettings(user: F.user, locationServicesEnabled: false), now: F.t0)
        #expect(off.version == 7 && off.etag != F.plain(Self.stored).etag)
    }

    @Test func lapseChangesTheEtagNotTheVersion() {
        let lapsed = F.plain(Self.stored, at: F.t0.addingTimeInterval(60))
        #expect(lapsed.version == 7 && lapsed.etag != F.plain(Self.stored).etag)
    }

    @Test func everyFieldCountsInTheDigest() throws {
        let base = F.plain(Self.stored)
        var changes = Self.stored
        changes.purpose = try PurposeString("Another text.")
        #expect(F.plain(changes).etag != base.etag)
        changes = Self.stored
        changes.updatedAt = F.t0.addingTimeInterval(1)
        #expect(F.plain(changes).etag != base.etag)
        let otherUser = StoredAuthorization(
            user: F.otherUser, app: F.app, service: .location, status: .authorized, level: .whenInUse, once: true,
            expiresAt: Self.stored.expiresAt, reason: .userConsent, updatedAt: F.t0, version: 7)
        #expect(F.plain(otherUser).etag != base.etag)
    }

    @Test func ifMatchUsesStrongComparison() {
        let etag = F.plain(Self.stored).etag
        #expect(ETagCondition.any.isSatisfied(by: etag))
        #expect(ETagCondition.tags(["\"0-0\"", etag]).isSatisfied(by: etag))
        #expect(!ETagCondition.tags(["W/" + etag]).isSatisfied(by: etag))
        #expect(!ETagCondition.tags(["\"7-0000000000000000\""]).isSatisfied(by: etag))
    }

    /// The exact bytes, so that a faster encoder cannot change the tags clients hold: FNV-1a
    /// over the fields (computed independently) after the version in decimal.
    @Test(
        "the tag of a known representation is pinned",
        arguments: [
            (Int64(0), "\"0-bc4e818df597fa32\""),
            (Int64(7), "\"7-bc4e818df597fa32\""),
            (Int64.max, "\"9223372036854775807-bc4e818df597fa32\""),
        ])
    func knownRepresentationHasAPinnedTag(version: Int64, expected: String) throws {
        let authorization = Authorization(
            user: try UserID("u1"), app: try AppID("com.a.b"), service: .camera, status: .denied, level: nil,
            provisional: false, once: false, expiresAt: nil, reason: .userConsent, purpose: nil, updatedAt: nil,
            version: version)
        #expect(authorization.etag == expected)
    }
}
