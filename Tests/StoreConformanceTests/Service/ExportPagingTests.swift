import Foundation
import PermissionDomain
import TestSupport
import Testing

/// A user's export reads each listing a page at a time, as it is walked, on both stores: pages
/// of `exportPageSize` rows holding the same rows as one large page, the next page read only
/// once the previous was handed over (so an export never holds more than one page of a
/// listing), and its snapshot given back however the walk ends.
@Suite struct ExportPagingTests {
    /// Seven grants: 7 records, 7 prompts and 14 audit entries about the user, in pages of 2.
    static let services: [ServiceID] = [.camera, .microphone, .bluetooth, .motion, .speechRecognition, .mediaLibrary, .homeKit]

    static func harness(_ kind: StoreKind) throws -> Harness {
        let h = try Harness(kind, exportPageSize: 2)
        for service in services { try h.grant(service, .full, .allow) }
        try h.grant(.camera, .full, .deny, user: Fixtures.otherUser)
        return h
    }

    @Test(arguments: StoreKind.allCases) func eachListingComesInPagesWithTheRowsOfOneLargePage(_ kind: StoreKind) throws {
        let h = try Self.harness(kind)
        let paged = try ExportContents(h.service.export(user: h.user))
        #expect(paged.pages["records"] == [2, 2, 2, 1])
        #expect(paged.pages["prompts"] == [2, 2, 2, 1])
        #expect(paged.pages["audit"] == [2, 2, 2, 2, 2, 2, 2])

        var configuration = h.service.configuration
        configuration.exportPageSize = 500
        let onePage = try ExportContents(
            PermissionService(store: h.fixture.store, clock: h.clock, configuration: configuration).export(user: h.user))
        #expect(onePage.pages["records"] == [7] && onePage.pages["audit"] == [14])
        #expect(paged.records.map(\.stored) == onePage.records.map(\.stored))
        #expect(paged.records.map(\.effective) == onePage.records.map(\.effective))
        #expect(paged.records.map(\.appName) == onePage.records.map(\.appName))
        #expect(paged.prompts == onePage.prompts)
        #expect(paged.audit.map(\.entry) == onePage.audit.map(\.entry))
        #expect(paged.audit.map(\.record) == onePage.audit.map(\.record))
        #expect(h.fixture.snapshotConnectionsInUse == 0)
    }

    /// The export is closed while its first page is visited: a walk that had read ahead (an
    /// export built whole) would still hand over every page; one that reads as it goes fails
    /// at its next read.
    @Test(arguments: StoreKind.allCases) func theNextPageIsReadOnlyOnceThePreviousWasHandedOver(_ kind: StoreKind) throws {
        let h = try Self.harness(kind)
        for listing in ["records", "prompts", "audit"] {
            let export = try h.service.export(user: h.user)
            var pages = 0
            let visit = { (rows: Int) in
                pages += 1
                #expect(rows == 2)
                if pages == 1 { export.close() }
            }
            #expect(throws: PermissionError.self, "\(listing)") {
                switch listing {
                case "records": try export.records { visit($0.count) }
                case "prompts": try export.prompts { visit($0.count) }
                default: try export.audit { visit($0.count) }
                }
            }
            #expect(pages == 1, "\(listing): the pages after the first were not read before it was handed over")
        }
        #expect(h.fixture.snapshotConnectionsInUse == 0)
    }

    @Test(arguments: StoreKind.allCases) func anErrorOfTheVisitEndsTheWalkAndTheSnapshotGoesBackWhenReleased(
        _ kind: StoreKind
    ) throws {
        let h = try Self.harness(kind)
        struct Stop: Error {}
        do {
            let export = try h.service.export(user: h.user)
            var pages = 0
            #expect(throws: Stop.self) {
                try export.audit { _ in
                    pages += 1
                    throw Stop()
                }
            }
            #expect(pages == 1)
            withExtendedLifetime(export) {
                #expect(h.fixture.snapshotConnectionsInUse == 1, "the export holds its snapshot until closed")
            }
        }
        #expect(h.fixture.snapshotConnectionsInUse == 0, "released without close(): closed then")

        // Opened on one thread, walked on another (as a response is written), closed on a third.
        let export = try h.service.export(user: h.user)
        let seen = Collected<Int>()
        onThreads(1) { _ in
            do {
                try export.audit { seen.append($0.count) }
            } catch {
                seen.append(-1)
            }
        }
        #expect(seen.elements == [2, 2, 2, 2, 2, 2, 2])
        onThreads(1) { _ in export.close() }
        #expect(h.fixture.snapshotConnectionsInUse == 0)
    }
}
