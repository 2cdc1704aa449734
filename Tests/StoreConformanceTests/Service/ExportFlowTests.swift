import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// A user's export (GDPR Art. 15 and 20) on both stores: the store's stored audit records of a
/// user, keyset-paged, and the chain head of a read; the service's export of records, prompts,
/// settings and audit entries from one snapshot (while writes go on), an unknown user's empty
/// export, and the limit.
@Suite struct ExportFlowTests {
    @Test(arguments: StoreKind.allCases) func auditRecordsAreTheUsersStoredEntriesInSeqOrderPagedByKeyset(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        try h.grant(.camera, .full, .deny, user: Fixtures.otherUser)
        try h.grant(.microphone, .full, .allow)
        _ = try h.service.putSettings(
            user: h.user, locationServicesEnabled: false, locale: nil, actor: h.consent, requestId: "s")
        let log = try h.auditLog()
        let mine = log.filter { $0.user == h.user }
        #expect(mine.count >= 5 && mine.count < log.count)

        let (all, head) = try h.fixture.store.read { reader in
            (try reader.auditRecords(user: h.user, after: 0, limit: 1000), try reader.auditHead())
        }
        #expect(all.map(\.seq) == mine.map(\.seq))
        #expect(all.map(\.hash) == mine.map(\.hash))
        #expect(all.allSatisfy { $0.user == mine.first?.pseudonym && $0.purpose == nil && $0.personal != nil }, "stored sealed")
        for record in all {
            #expect(AuditChain.sha256.hash(of: record) == record.hash, "the record is the hashed form")
        }
        #expect(head?.seq == log.last?.seq && head?.hash == log.last?.hash)
        #expect(head.map { AuditChain.sha256.hash(of: $0) } == log.last?.hash)

        // Keyset pages of two, from after each page's last seq, give the same records.
        var paged: [AuditRecord] = []
        var after: Int64 = 0
        while true {
            let page = try h.fixture.store.read { try $0.auditRecords(user: h.user, after: after, limit: 2) }
            #expect(page.count <= 2)
            paged += page
            guard let last = page.last, page.count == 2 else { break }
            after = last.seq
        }
        #expect(paged == all)
        #expect(try h.fixture.store.read { try $0.auditRecords(user: h.user, after: all.last!.seq, limit: 5) }.isEmpty)
        #expect(try h.fixture.store.read { try $0.auditRecords(user: UserID(trusted: "nobody"), after: 0, limit: 5) }.isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func anEmptyLogHasNoHead(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        #expect(try fixture.store.read { try $0.auditHead() } == nil)
        let export = try PermissionService(store: fixture.store, clock: ManualClock(Fixtures.t0))
            .export(user: Fixtures.user)
        #expect(export.headSeq == 0 && export.headHash == AuditChain.genesis)
        let contents = try ExportContents(export)
        #expect(contents.records.isEmpty && contents.prompts.isEmpty && contents.audit.isEmpty)
        #expect(contents.pages.isEmpty, "no empty page is handed over")
    }

    @Test(arguments: StoreKind.allCases) func theExportHoldsTheUsersRecordsPromptsSettingsAndHistory(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        try h.grant(.location, .whenInUse, .deny)
        _ = try h.prompt(.microphone, .full)  // pending
        try h.grant(.camera, .full, .allow, user: Fixtures.otherUser)
        _ = try h.service.putSettings(
            user: h.user, locationServicesEnabled: true, locale: try LanguageTag("de"), actor: h.consent, requestId: "s")
        h.clock.advance(by: 5)

        let export = try h.service.export(user: h.user)
        let contents = try ExportContents(export)
        let log = try h.auditLog()
        #expect(export.user == h.user && export.exportedAt == Fixtures.t0.addingTimeInterval(5))
        #expect(export.headSeq == log.last?.seq && export.headHash == log.last?.hash)
        #expect(contents.records.map(\.stored.service) == [.camera, .location])
        #expect(contents.records.allSatisfy { $0.stored.user == h.user && $0.appName == "Maps" })
        #expect(contents.records[0].effective.status == .authorized && contents.records[1].effective.status == .denied)
        #expect(contents.records[0].stored.purpose == Fixtures.allPurposeStrings["NSCameraUsageDescription"])
        #expect(contents.prompts.count == 3 && contents.prompts.allSatisfy { $0.user == h.user })
        #expect(contents.prompts.map(\.state).filter { $0 == .pending }.count == 1)
        #expect(export.settings.locale == (try LanguageTag("de")))
        let mine = log.filter { $0.user == h.user }
        #expect(contents.audit.map(\.entry) == mine)
        for item in contents.audit {
            #expect(item.record.seq == item.entry.seq && item.record.hash == item.entry.hash)
            #expect(AuditChain.sha256.hash(of: item.record) == item.record.hash)
        }
        let counted = try h.fixture.store.read { try $0.exportRowCount(user: h.user, upTo: 100) }
        #expect(counted == contents.records.count + contents.prompts.count + contents.audit.count)

        let stranger = try h.service.export(user: UserID(trusted: "never-seen"))
        let nothing = try ExportContents(stranger)
        #expect(nothing.records.isEmpty && nothing.prompts.isEmpty && nothing.audit.isEmpty)
        #expect(stranger.settings == UserSettings(user: UserID(trusted: "never-seen")))
        #expect(stranger.headSeq == export.headSeq, "the head is the log's, whoever the user")
    }

    @Test(arguments: StoreKind.allCases) func anExportOverTheLimitIsRefused(_ kind: StoreKind) throws {
        let h = try Harness(kind, maxExportRecords: 6)
        try h.grant(.camera, .full, .allow)  // 1 record, 1 prompt, 2 entries
        #expect(try ExportContents(h.service.export(user: h.user)).audit.count == 2)
        try h.grant(.microphone, .full, .allow)  // 2 records, 2 prompts, 4 entries: 8
        #expect(throws: ExportTooLarge(limit: 6)) { try h.service.export(user: h.user) }
        #expect(try ExportContents(h.service.export(user: Fixtures.otherUser)).audit.isEmpty, "other users are not affected")
        #expect(h.fixture.snapshotConnectionsInUse == 0, "a refused export gives its snapshot back")
    }

    @Test(arguments: StoreKind.allCases) func anExportReadsOneSnapshotWhileWritesGoOn(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let (service, user, app, consent) = (h.service, h.user, h.app, h.consent)
        let failures = Collected<String>()
        let exports = Collected<(export: UserExport, contents: ExportContents)>()
        onThreads(2) { thread in
            do {
                for index in 0..<30 {
                    if thread == 0 {
                        _ = try service.setAuthorization(
                            user: user, app: app, service: .camera, status: index % 2 == 0 ? .authorized : .denied,
                            level: index % 2 == 0 ? Level(trusted: "full") : nil, actor: consent, requestId: nil)
                    } else {
                        let export = try service.export(user: user)
                        exports.append((export, try ExportContents(export)))
                    }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.elements.isEmpty)
        for (export, contents) in exports.elements {
            let changes = contents.audit.filter { $0.entry.service == .camera }.count
            #expect(Int64(changes) == (contents.records.first?.stored.version ?? 0), "records and entries agree")
            #expect(contents.audit.last.map(\.record.seq) ?? 0 <= export.headSeq)
            if let last = contents.audit.last, export.headSeq > 1 {
                #expect(last.record.seq == export.headSeq && last.record.hash == export.headHash)
            }
        }
    }
}
