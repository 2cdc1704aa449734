import Foundation
import PermissionAPI
import PermissionDomain
import PermissionWire
import Testing

/// Re-consent over HTTP (SPEC §11), on the store the suite runs on: `purposeChanged` on reads
/// once the app's text changes (and a new entity-tag with it), the reverse query
/// `GET /v1/apps/{app}/purpose-changed`, `PUT /v1/apps/{app}` with `reconsent` writing one
/// published `authorization.reconsent` entry per grant (the feed serves the audit log: docs/walkthrough.md reads one from `/v1/events`), and bad input refused with nothing written.
@Suite struct ReconsentTests {
    static let camera = "/v1/users/u42/apps/com.example.maps/authorizations/camera"

    /// `PUT /v1/apps/com.example.maps` with the camera's text replaced.
    static func register(_ app: TestApp, camera text: String, extra: String = "") throws -> TestResponse {
        var purposes = TestApp.allPurposes
        purposes["NSCameraUsageDescription"] = text
        let strings = String(decoding: try WireEncoder.encode(purposes), as: UTF8.self)
        return try app.send(.put, "/v1/apps/com.example.maps", json: #"{"name":"Maps","purposeStrings":\#(strings)\#(extra)}"#)
    }

    /// A re-consent that stops after the registration was saved (the disk full, SQLite) is a
    /// 503 without Retry-After, whose detail says to send it again: not the plain "nothing was
    /// changed, retry", which a client (the SDK: for any method) would take at its word. Sent
    /// again, it finishes the rest.
    @Test(.enabled(if: TestApp.onSQLite, "the file's page limit is SQLite's"))
    func aReconsentStoppedPartWayIsNotAnswerIfNothingChanged() throws {
        let app = try TestApp()
        try app.registerApp()
        let sqlite = try #require(app.sqliteStore)
        let grants = PermissionService.reconsentBatchSize + 44
        for index in 0..<grants { try app.grant("camera", "full", "allow", user: "r\(index)") }
        // Room for the registration's change, not for a batch of 256 returned grants.
        let pages = try sqlite.pool.writer.writeWithoutTransaction { database in
            try database.withStatement("PRAGMA page_count") { try $0.step() ? $0.int64(at: 0) : 0 }
        }
        try sqlite.pool.writer.writeWithoutTransaction { try $0.execute("PRAGMA max_page_count = \(pages + 4)") }
        let stopped = try Self.register(app, camera: "Scans tickets and receipts.", extra: #","reconsent":true"#)
        #expect(stopped.status == 503 && stopped.headers["Retry-After"] == nil, "\(stopped.status) \(stopped.text)")
        #expect(stopped.text.contains("send the registration again"), "\(stopped.text)")
        let saved = try app.send(.get, "/v1/apps/com.example.maps").decode(App.self)
        #expect(saved.purposeStrings["NSCameraUsageDescription"] == "Scans tickets and receipts.", "the registration was saved")

        try sqlite.pool.writer.writeWithoutTransaction { try $0.execute("PRAGMA max_page_count = 1073741823") }
        let again = try Self.register(app, camera: "Scans tickets and receipts.", extra: #","reconsent":true"#)
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.decode(App.self).reconsented == grants, "every grant, none before (the batch was rolled back)")
    }

    /// A prompt pending when the app changes its text shows the old one: a re-consent cancels
    /// it (`prompt.cancelled`), so that the app's next request asks with the new text and the
    /// answer is not given to the old one (to be asked again at the next re-consent). A prompt
    /// whose text did not change stays.
    @Test func aReconsentCancelsPromptsShowingTheOldText() throws {
        let app = try TestApp()
        #expect([200, 201].contains(try Self.register(app, camera: "Scans tickets.").status))
        let old = try app.prompt("camera", "full", user: "u2")
        let unchanged = try app.prompt("microphone", "full", user: "u2")
        #expect(old.purpose == "Scans tickets.")
        let before = try app.lastSeq()
        let asked = try Self.register(app, camera: "Scans tickets and receipts.", extra: #","reconsent":true"#)
        #expect(asked.status == 200, "\(asked.text)")
        let entries = try app.audit("after=\(before)")
        #expect(entries.map(\.action).contains("prompt.cancelled"), "\(entries.map(\.action))")
        #expect(entries.first { $0.action == "prompt.cancelled" }?.promptId == old.id)
        #expect(try app.send(.get, "/v1/prompts/\(old.id)").decode(Prompt.self).state == .cancelled)
        #expect(try app.send(.get, "/v1/prompts/\(unchanged.id)").decode(Prompt.self).state == .pending)
        let new = try app.prompt("camera", "full", user: "u2")
        #expect(new.id != old.id && new.purpose == "Scans tickets and receipts.")
    }

    @Test func aChangedTextIsFlaggedListedAndAskedAgainWithOneEntryPerGrant() throws {
        let app = try TestApp()
        try app.registerApp()
        let granted = try app.grant("camera", "full", "allow")
        try app.grant("camera", "full", "allow", user: "u43")
        try app.grant("camera", "full", "deny", user: "u44")
        let first = try app.send(.get, Self.camera)
        #expect(!first.text.contains("purposeChanged") && granted.purposeChanged == nil)
        let etag = try #require(first.headers["ETag"])

        let changed = try Self.register(app, camera: "Scans tickets and receipts.")
        #expect(changed.status == 200 && !changed.text.contains("reconsented"), "\(changed.text)")
        let flagged = try app.send(.get, Self.camera, headers: [("If-None-Match", etag)])
        #expect(flagged.status == 200, "the representation changed, so the old tag no longer matches")
        #expect(try flagged.decode(Authorization.self).purposeChanged == true)
        #expect(try app.authorization("camera", user: "u44").purposeChanged == nil, "a denial is not flagged")
        let listing = try app.send(.get, "/v1/users/u42/authorizations").decode(AuthorizationList.self)
        #expect(listing.items.first { $0.service == "camera" }?.purposeChanged == true)

        let page1 = try app.send(.get, "/v1/apps/com.example.maps/purpose-changed?limit=1")
        #expect(page1.status == 200, "\(page1.text)")
        let first1 = try page1.decode(AuthorizationList.self)
        #expect(first1.items.map(\.user) == ["u42"] && first1.nextCursor == "u42/camera")
        let page2 = try app.send(.get, "/v1/apps/com.example.maps/purpose-changed?limit=1&after=u42/camera")
            .decode(AuthorizationList.self)
        #expect(page2.items.map(\.user) == ["u43"] && page2.items.allSatisfy { $0.purposeChanged == true })

        let seq = try app.lastSeq()
        let asked = try Self.register(app, camera: "Scans tickets and receipts.", extra: #","reconsent":true"#)
        #expect(asked.status == 200, "\(asked.text)")
        #expect(try asked.decode(App.self).reconsented == 2)
        let entries = try app.audit("after=\(seq)")
        let reconsents = entries.filter { $0.action == "authorization.reconsent" }
        #expect(entries.count == 2, "one entry per grant; the registration sent again unchanged writes none")
        #expect(Set(reconsents.map(\.user)) == ["u42", "u43"])
        #expect(
            reconsents.allSatisfy { $0.actor.role == "admin" && $0.reason == "purposeChanged" && $0.to?.status == .notDetermined }
        )

        let after = try app.authorization("camera")
        #expect(after.status == .notDetermined && after.reason == .purposeChanged && after.purposeChanged == nil)
        #expect(try app.authorization("camera", user: "u44").status == .denied, "denials stay")
        #expect(try app.send(.get, "/v1/apps/com.example.maps/purpose-changed").decode(AuthorizationList.self).items.isEmpty)
        #expect(try app.prompt("camera", "full").purpose == "Scans tickets and receipts.")
    }

    @Test(arguments: [
        ("a string", #","reconsent":"yes""#),
        ("null", #","reconsent":null"#),
        ("a number", #","reconsent":1"#),
    ])
    func aBadReconsentIsRefusedAndWritesNothing(_ name: String, _ extra: String) throws {
        let app = try TestApp()
        try app.registerApp()
        try app.grant("camera", "full", "allow")
        let seq = try app.lastSeq()
        let response = try Self.register(app, camera: "Scans receipts.", extra: extra)
        #expect(response.status == 400 && response.problemType == .invalidRequest, "\(name): \(response.text)")
        #expect(response.problem?.detail.contains("reconsent") == true, "\(name): \(response.text)")
        #expect(try app.lastSeq() == seq, "\(name): nothing written")
        #expect(try app.authorization("camera").purposeChanged == nil)
    }

    @Test func theReverseQueryRefusesAMalformedCursorAndAnUnknownApp() throws {
        let app = try TestApp()
        try app.registerApp()
        for cursor in ["u42", "u42/Camera", "/camera", "u%2042/camera"] {
            let response = try app.send(.get, "/v1/apps/com.example.maps/purpose-changed?after=\(cursor)")
            #expect(response.status == 400 && response.problem?.detail.contains("after") == true, "\(cursor): \(response.text)")
        }
        #expect(try app.send(.get, "/v1/apps/com.example.unknown/purpose-changed").status == 404)
    }
}
