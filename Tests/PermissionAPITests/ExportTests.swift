import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import PermissionWire
import Testing

/// `GET /v1/users/{user}/export` and the consent pages' "Download My Data" (GDPR Art. 15 and
/// 20), on either store: who may read it, the document (consent records, prompts, settings,
/// the audit entries readable and as stored, the head), never cached, an unknown user's empty
/// document, and the limit.
@Suite struct ExportTests {
    static func app(maxExportRecords: Int = 5_000) throws -> TestApp {
        let app = try TestApp { $0.service.maxExportRecords = maxExportRecords }
        try app.registerApp()
        return app
    }

    @Test func theDocumentHoldsTheUsersRecordsAndEveryEntryAsStored() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        _ = try app.grant("location", "whenInUse", "deny")
        _ = try app.grant("camera", "full", "allow", user: "u43")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)

        let response = try app.send(.get, "/v1/users/u42/export")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        let export = try response.decode(PermissionWire.UserExport.self)
        #expect(
            export.schema
                == PermissionWire.UserExport.Schema(
                    name: "permission-user-export", version: 1, conformsTo: "ISO/IEC TS 27560:2023"))
        #expect(export.user == "u42")
        #expect(export.auditEncoding.tag == "permission-audit-v2" && export.auditEncoding.columns == AuditChain.columns)
        #expect(export.auditEncoding.genesis == String(repeating: "0", count: 64) && export.auditEncoding.digest == "sha256")

        let camera = try #require(export.consentRecords.first)
        #expect(export.consentRecords.map(\.dataCategory) == ["camera", "location"])
        #expect(camera.recordId == "/v1/users/u42/apps/com.example.maps/authorizations/camera")
        #expect(camera.principal == "u42" && camera.controller == .init(id: "com.example.maps", name: "Maps"))
        #expect(camera.state == .authorized && camera.level == "full" && camera.reason == .userConsent)
        #expect(camera.purpose == .init(text: "Purpose for NSCameraUsageDescription."))
        #expect(camera.givenAt != nil && camera.expiresAt == nil && camera.version == 1)
        #expect(
            camera.withdrawal
                == .init(
                    page: "/consent/settings", method: "POST",
                    path: "/v1/users/u42/apps/com.example.maps/authorizations/camera/revoke"))
        #expect(export.consentRecords[1].state == .denied, "location: denied, and Location Services are off")
        #expect(export.prompts.count == 2 && export.prompts.allSatisfy { $0.user == "u42" && $0.state == .answered })
        #expect(export.settings == PermissionWire.UserSettings(locationServicesEnabled: false))

        let log = try app.audit("user=u42&limit=1000")
        #expect(export.audit.map(\.entry) == log)
        #expect(export.head.seq == (try app.lastSeq()))
        #expect(export.head.hash == (try app.audit("after=\(export.head.seq - 1)").first?.hash))
        let user = try UserID("u42")
        let records = try app.application.service.store.read { try $0.auditRecords(user: user, after: 0, limit: 1000) }
        #expect(export.audit.map(\.seq) == records.map(\.seq))
        for (item, record) in zip(export.audit, records) {
            #expect(item.hash == record.hash && item.prevHash == record.prevHash && item.entry.hash == record.hash)
            let stored = AuditChain.storedValues(of: record).map { value -> PermissionWire.UserExport.StoredValue in
                switch value {
                case .null: .null
                case .integer(let number): .integer(number)
                case .text(let text): .text(text)
                }
            }
            #expect(item.stored == stored, "seq \(item.seq): the stored values, column by column")
        }
    }

    @Test func adminAndConsentKeysMayExportAndAppAndAuditorKeysMayNot() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        for (role, status) in [(Role.consent, 200), (.app, 403), (.auditor, 403)] {
            let (_, secret) = try app.storeKey(role: role, app: role == .app ? "com.example.maps" : nil)
            let response = try app.send(.get, "/v1/users/u42/export", headers: [("Authorization", "Bearer \(secret)")])
            #expect(response.status == status, "\(role): \(response.text)")
        }
        let anonymous = try app.send(.get, "/v1/users/u42/export", headers: [ConsentSessionTests.noKey])
        #expect(anonymous.status == 401)
        #expect(try app.send(.get, "/v1/users/not%20valid/export").problemType == .invalidRequest)
    }

    @Test func aRecordAPolicyDecidesNamesNoWayToWithdrawIt() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        _ = try app.grant("microphone", "full", "allow")
        #expect(try app.policy("p1", #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#).status == 201)
        #expect(
            try app.send(.post, "/v1/users/u42/apps/com.example.maps/authorizations/camera/revoke").status == 409,
            "the way the export would have named")

        let export = try app.send(.get, "/v1/users/u42/export").decode(PermissionWire.UserExport.self)
        let camera = try #require(export.consentRecords.first { $0.dataCategory == "camera" })
        #expect(camera.state == .restricted && camera.reason == .policy)
        #expect(camera.withdrawal == nil)
        let microphone = try #require(export.consentRecords.first { $0.dataCategory == "microphone" })
        #expect(microphone.withdrawal?.path == "/v1/users/u42/apps/com.example.maps/authorizations/microphone/revoke")
        let json = try app.send(.get, "/v1/users/u42/export").text
        #expect(json.components(separatedBy: #""withdrawal""#).count == 2, "one record names a way, the other no member")
    }

    @Test func anUnknownUsersExportIsAValidEmptyDocument() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        let seq = try app.lastSeq()
        let response = try app.send(.get, "/v1/users/never-seen/export")
        #expect(response.status == 200)
        let export = try response.decode(PermissionWire.UserExport.self)
        #expect(export.user == "never-seen" && export.consentRecords.isEmpty && export.prompts.isEmpty && export.audit.isEmpty)
        #expect(export.settings == PermissionWire.UserSettings(locationServicesEnabled: true))
        #expect(export.head.seq == seq, "the head of the log, whoever the user")
        #expect(try app.lastSeq() == seq, "an export writes nothing")
    }

    @Test func anExportOverTheLimitIsRefusedWithTheLimitNamed() throws {
        let app = try Self.app(maxExportRecords: 3)
        _ = try app.grant("camera", "full", "allow")  // 1 record, 1 prompt, 2 entries
        let response = try app.send(.get, "/v1/users/u42/export")
        #expect(response.status == 422)
        #expect(response.problemType == .exportTooLarge)
        #expect(response.problem?.detail.contains("--max-export-records") == true)
        #expect(response.text.contains(#""limit":3"#), "\(response.text)")
        #expect(try app.send(.get, "/v1/users/u43/export").status == 200)
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/export")
        #expect(page.status == 422 && page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("too large to download"))
    }

    @Test func theConsentPagesOfferTheSessionUsersOwnExportAsADownload() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        _ = try app.grant("microphone", "full", "deny", user: "u43")
        let browser = try ConsentBrowser(app)
        let history = try browser.get("/consent/history")
        #expect(history.text.contains(#"<a id="download-data" href="/consent/export" download="">Download My Data</a>"#))
        let german = try ConsentBrowser(app, acceptLanguage: "de").get("/consent/history")
        #expect(german.text.contains("Meine Daten herunterladen"))

        let response = try browser.get("/consent/export")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Disposition"] == #"attachment; filename="permissions-u42.json""#)
        let export = try response.decode(PermissionWire.UserExport.self)
        #expect(export.user == "u42" && export.consentRecords.map(\.dataCategory) == ["camera"])
        #expect(export.audit.contains { $0.entry.action == "consent.session.created" })
        #expect(export.audit.allSatisfy { $0.entry.user == "u42" })

        let other = try ConsentBrowser(app, user: "u43").get("/consent/export").decode(PermissionWire.UserExport.self)
        #expect(other.user == "u43" && other.consentRecords.map(\.dataCategory) == ["microphone"])
        // The cookie is no credential on /v1.
        let viaAPI = try app.send(.get, "/v1/users/u42/export", headers: browser.headers)
        #expect(viaAPI.status == 401)
        let signedOut = try app.send(.get, "/consent/export", headers: [ConsentSessionTests.noKey])
        #expect(signedOut.status == 401 && signedOut.headers["Content-Type"]?.hasPrefix("text/html") == true)
    }

    /// One download at a time a session: while the first is being read (its response not
    /// released), a second is `429` with `Retry-After`, in the page's language; another
    /// session is not held back, and the session downloads again once the first is done.
    @Test func aSessionDownloadsItsDataOnceAtATime() throws {
        let app = try Self.app()
        _ = try app.grant("camera", "full", "allow")
        let browser = try ConsentBrowser(app)
        var first: HTTPResponse? = try app.respond(.get, "/consent/export", headers: browser.headers)
        #expect(first?.status.code == 200)
        let second = try browser.get("/consent/export")
        #expect(second.status == 429 && second.headers["Retry-After"] == "5", "\(second.text)")
        #expect(second.text.contains("Your data is already being downloaded"), "\(second.text)")
        let german = try app.send(.get, "/consent/export", headers: browser.headers + [("Accept-Language", "de")])
        #expect(german.status == 429 && german.text.contains("Deine Daten werden bereits heruntergeladen"))
        // Another session, and the API, are not held back by this one. On PostgreSQL the test
        // pool's share of export connections is one, taken: the store's own cap, a 503 page
        // (not the 500 of a failure) that says to come back in a moment.
        let otherSession = try ConsentBrowser(app).get("/consent/export")
        if app.postgresStore == nil {
            #expect(otherSession.status == 200, "another session: \(otherSession.text)")
        } else {
            #expect(otherSession.status == 503 && otherSession.headers["Retry-After"] == "1", "\(otherSession.text)")
            #expect(otherSession.text.contains("The service is busy") && otherSession.text.contains("Nothing was changed"))
        }
        let viaAPI = try app.send(.get, "/v1/users/u42/export").status
        #expect(viaAPI == (app.postgresStore == nil ? 200 : 503), "the API: \(viaAPI)")

        if case .stream(let produce)? = first?.body {
            let collector = CollectingWriter()
            try produce(collector)
            #expect(try WireDecoder.decodeResponse(PermissionWire.UserExport.self, from: collector.bytes).user == "u42")
        } else {
            Issue.record("the export is streamed")
        }
        first = nil
        #expect(try browser.get("/consent/export").status == 200, "once the first is done")
    }
}
