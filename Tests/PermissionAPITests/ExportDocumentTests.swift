import Foundation
import HTTPCore
import PermissionDomain
import PermissionWire
import Testing

@testable import PermissionAPI

/// The export document as it is streamed, on either store: byte for byte the encoding of the
/// whole ``PermissionWire/UserExport`` by `WireEncoder` (what the export sent when it was built
/// in memory), for users with every kind of row and none, in pages of any size; the consent
/// pages' download the same bytes; written a page at a time; and left unfinished when a read
/// fails after it began.
@Suite struct ExportDocumentTests {
    /// `u42` with records of a named app and of one never registered, pending and answered
    /// prompts, changed settings, a location alert schedule and their audit entries; `u43` with
    /// one record; `u44` erased; an app whose name and purpose strings need escaping.
    static func app(pageSize: Int = 500) throws -> TestApp {
        let app = try TestApp { $0.service.exportPageSize = pageSize }
        try app.registerApp()
        var purposes = TestApp.allPurposes
        purposes["NSCameraUsageDescription"] = #"Scan "receipts" / QR codes — ✓ ünïcode"#
        let pro = try app.put(AppRegistration(name: #"Mäps "Pro" / ✓"#, purposeStrings: purposes), as: "com.example.pro")
        #expect(pro.status == 201, "\(pro.text)")
        _ = try app.grant("camera", "full", "allow")
        _ = try app.grant("microphone", "full", "deny")
        _ = try app.grant("camera", "full", "allow", app: "com.example.pro")
        _ = try app.prompt("contacts", "full")  // pending
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        #expect(try app.lifecycle("backgroundLocationUsed").status == 200)
        let unnamed = try app.set("bluetooth", #"{"status":"denied"}"#, app: "com.example.unregistered")
        #expect(unnamed.status == 200 || unnamed.status == 201, "\(unnamed.text)")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true,"locale":"de-AT"}"#)
        _ = try app.grant("camera", "full", "deny", user: "u43")
        _ = try app.grant("camera", "full", "allow", user: "u44")
        #expect(try app.send(.delete, "/v1/users/u44").status == 200)
        app.clock.advance(by: 61)
        return app
    }

    /// The export of `user` as the buffered encoder made it: the whole document built in
    /// memory from the export's rows and encoded by `WireEncoder` in one go.
    static func bufferedDocument(_ app: TestApp, user: String) throws -> [UInt8] {
        let export = try app.application.service.export(user: UserID(user))
        defer { export.close() }
        let publicURL = app.configuration.publicURL
        var records: [PermissionWire.UserExport.ConsentRecord] = []
        var prompts: [PermissionWire.Prompt] = []
        var alerts: [PermissionWire.UserExport.LocationAlert] = []
        var audit: [PermissionWire.UserExport.AuditItem] = []
        try export.records { records += $0.map { WireMapping.consentRecord($0, publicURL: publicURL) } }
        try export.prompts { prompts += $0.map(WireMapping.prompt) }
        try export.locationAlerts { alerts += $0.map(WireMapping.locationAlert) }
        try export.audit { audit += $0.map(WireMapping.auditItem) }
        let document = PermissionWire.UserExport(
            user: user, exportedAt: export.exportedAt, head: .init(seq: export.headSeq, hash: export.headHash),
            auditEncoding: .init(tag: AuditChain.tagText, columns: AuditChain.columns, genesis: AuditChain.genesis),
            consentRecords: records, prompts: prompts, settings: WireMapping.settings(export.settings),
            locationAlerts: alerts, audit: audit)
        return try WireEncoder.encode(document)
    }

    @Test(arguments: [2, 500]) func theStreamedDocumentIsTheBufferedEncodingByteForByte(pageSize: Int) throws {
        let app = try Self.app(pageSize: pageSize)
        for user in ["u42", "u43", "u44", "never-seen"] {
            let response = try app.send(.get, "/v1/users/\(user)/export")
            #expect(response.status == 200, "\(user): \(response.text)")
            let buffered = try Self.bufferedDocument(app, user: user)
            let same = response.body == buffered
            #expect(same, "\(user):\n\(response.text)\n\(String(decoding: buffered, as: UTF8.self))")
        }
        let u42 = try app.send(.get, "/v1/users/u42/export").decode(PermissionWire.UserExport.self)
        #expect(u42.consentRecords.count == 5 && u42.prompts.count == 4 && u42.locationAlerts?.count == 1)
        #expect(u42.consentRecords.contains { $0.controller == .init(id: "com.example.unregistered", name: nil) })
        #expect(u42.consentRecords.contains { $0.controller.name == #"Mäps "Pro" / ✓"# })
        #expect(u42.audit.count == 10 && u42.settings.locale == "de-AT")
        let erased = try app.send(.get, "/v1/users/u44/export").decode(PermissionWire.UserExport.self)
        #expect(erased.consentRecords.isEmpty && erased.audit.isEmpty, "an erased user's entries are no longer theirs")
        #expect(app.snapshotConnectionsInUse == 0)
    }

    @Test func theConsentPagesDownloadIsTheSameDocument() throws {
        let app = try Self.app(pageSize: 2)
        let browser = try ConsentBrowser(app)
        let download = try browser.get("/consent/export")
        #expect(download.status == 200)
        #expect(download.headers["Content-Disposition"] == #"attachment; filename="permissions-u42.json""#)
        #expect(download.headers["Content-Type"] == "application/json")
        #expect(download.body == (try Self.bufferedDocument(app, user: "u42")))
        #expect(download.body == (try app.send(.get, "/v1/users/u42/export").body))
    }

    /// An export reads its snapshot alone: the apps of its 300 records (never registered, so
    /// "not registered" is what a read would keep) do not go into the status read cache.
    @Test func anExportLeavesTheReadCacheAsItWas() throws {
        let app = try TestApp()
        try ExportStreamTests.Live.seed(app, records: 300)
        _ = try app.send(.get, TestApp.path("u42", "com.example.app7", "camera"))  // one entry, one app
        let entries = { app.sqliteStore?.readCacheStatistics?.entries ?? app.postgresStore?.readCacheStatistics?.entries }
        let before = try #require(entries())
        #expect(before > 0)
        let export = try app.send(.get, "/v1/users/u42/export")
        #expect(export.status == 200)
        #expect(try export.decode(PermissionWire.UserExport.self).consentRecords.count == 300)
        #expect(entries() == before)
    }

    @Test func eachPageIsWrittenAndSentBeforeTheNextIsRead() throws {
        let app = try Self.app(pageSize: 2)
        let export = try app.application.service.export(user: UserID("u42"))
        let writer = RecordingWriter()
        try ExportController.writeDocument(export, publicURL: "", to: writer)
        export.close()
        // 10 audit entries, 5 records, 4 prompts, 1 schedule: one write per page, each flushed,
        // and the members after the last listing.
        #expect(writer.writes.count == 5 + 3 + 2 + 1 + 1)
        #expect(writer.flushes == writer.writes.count)
        #expect(writer.writes.flatMap { $0 } == (try Self.bufferedDocument(app, user: "u42")))
        let largest = writer.writes.map(\.count).max() ?? 0
        #expect(largest < 4_000, "a write holds one page of two rows (and the members between listings): \(largest)")
    }

    /// The export is closed while the writer takes its first page (as a store that fails after
    /// the head was sent): the document stops there, unfinished, and the error comes out.
    @Test func aReadThatFailsAfterTheFirstPageLeavesTheDocumentUnfinished() throws {
        let app = try Self.app(pageSize: 2)
        let export = try app.application.service.export(user: UserID("u42"))
        let writer = RecordingWriter { export.close() }
        #expect(throws: PermissionError.self) { try ExportController.writeDocument(export, publicURL: "", to: writer) }
        let written = writer.writes.flatMap { $0 }
        #expect(writer.writes.count == 1)
        let full = try Self.bufferedDocument(app, user: "u42")
        #expect(written.count < full.count && Array(full.prefix(written.count)) == written)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(written)) }
        #expect(app.snapshotConnectionsInUse == 0)
    }
}

/// An in-memory body writer that keeps each write, and runs `onWrite` after the first.
final class RecordingWriter: HTTPBodyWriter {
    private(set) var writes: [[UInt8]] = []
    private(set) var flushes = 0
    private let onWrite: () -> Void

    init(onWrite: @escaping () -> Void = {}) {
        self.onWrite = onWrite
    }

    func write(_ bytes: [UInt8]) throws {
        writes.append(bytes)
        if writes.count == 1 { onWrite() }
    }

    func flush() throws { flushes += 1 }
}
