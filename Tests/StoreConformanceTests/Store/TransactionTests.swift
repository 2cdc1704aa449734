import Foundation
import PermissionDomain
import TestSupport
import TestThreads
import Testing

/// `PermissionStore.read` and `write` on both stores: a write is all or nothing, its body's
/// error comes out unchanged, a read sees one snapshot, and a write reads its own changes.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct TransactionTests {
    /// A body's own error, with a payload to check it arrives unchanged.
    struct Refused: Error, Equatable {
        let code: Int
    }

    let u1: UserID
    let maps: AppID

    init() throws {
        u1 = try user("u1")
        maps = try app("com.example.maps")
    }

    func record(_ user: UserID, version: Int64 = 1, status: AuthorizationStatus = .denied) -> StoredAuthorization {
        StoredAuthorization(
            user: user, app: maps, service: .camera, status: status, level: status == .authorized ? .full : nil,
            reason: .userSet, updatedAt: epoch, version: version)
    }

    /// Saves one of every kind of row and appends an entry.
    func saveOneOfEverything(_ writer: any PermissionWriter, suffix: String) throws {
        let u = try user("u-\(suffix)")
        try writer.save(record(u))
        try writer.save(App(trusted: try app("com.rolled.\(suffix)"), name: "Rolled", purposeStrings: [:], updatedAt: epoch))
        try writer.save(try ServiceDefinition(id: try service("rolled\(suffix)"), levels: [.full], purposeKeys: [["K"]]))
        try writer.save(
            try Policy(
                id: PolicyID("p-\(suffix)"), service: .camera, app: nil, user: u, effect: .restrict, level: nil, updatedAt: epoch)
        )
        try writer.save(UserSettings(user: u, locationServicesEnabled: false, updatedAt: epoch))
        try writer.save(
            Prompt(
                id: try PromptID("prompt-\(suffix)"), user: u, app: maps, service: .camera, kind: .request, requestedLevel: .full,
                options: [.allow, .deny], purpose: try purpose("Scan."), purposeKey: "NSCameraUsageDescription", state: .pending,
                createdAt: epoch, expiresAt: epoch + 600))
        try writer.save(
            try APIKey(
                id: try KeyID(String(repeating: suffix, count: 16)), role: .admin, app: nil, name: "rolled",
                secretHash: Array(repeating: 7, count: 32),
                createdAt: epoch))
        try writer.append(.change(u, maps, .camera))
    }

    /// Everything a reader can list, for comparing before and after.
    func everything(_ store: any PermissionStore) throws -> String {
        try store.read { reader in
            let parts: [Any] = [
                try reader.authorizations(matching: AuthorizationFilter(), after: nil, limit: 1000),
                try reader.apps(after: nil, limit: 1000), try reader.services(), try reader.policies(after: nil, limit: 1000),
                try reader.prompts(matching: PromptFilter(), after: nil, limit: 1000), try reader.apiKeys(),
                try reader.audit(query: AuditQuery(limit: 1000)), try reader.lastAuditSeq(),
                try reader.userSettings(try user("u-a")) as Any,
            ]
            return parts.map { String(describing: $0) }.joined(separator: "\n")
        }
    }

    @Test(arguments: StoreKind.allCases) func aBodyThatThrowsLeavesNoTraceAndItsErrorComesOutUnchanged(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        try fixture.store.write { try self.saveOneOfEverything($0, suffix: "a") }
        let before = try everything(fixture.store)
        let error = #expect(throws: Refused.self) {
            try fixture.store.write { writer in
                try self.saveOneOfEverything(writer, suffix: "b")
                // Changes to rows that existed, too.
                try writer.save(self.record(try user("u-a"), version: 2, status: .authorized))
                #expect(try writer.deletePolicy(id: PolicyID("p-a")))
                throw Refused(code: 42)
            }
        }
        #expect(error == Refused(code: 42))
        #expect(try everything(fixture.store) == before)
        // The next write numbers its entry right after the last committed one.
        #expect(try fixture.store.write { try $0.append(.change(self.u1, self.maps, .camera)) } == 2)
        #expect(try fixture.store.verifyAuditChain(batchSize: 10, progress: nil).intactLength == 2)
    }

    @Test(arguments: StoreKind.allCases) func aWriteReadsItsOwnChanges(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let (u1, maps) = (u1, maps)
        try fixture.store.write { try $0.save(self.record(u1)) }
        _ = try fixture.store.read { try $0.authorizationAndSettings(user: u1, app: maps, service: .camera, withSettings: true) }
        try fixture.store.write { writer in
            try writer.save(self.record(u1, version: 2, status: .authorized))
            try writer.save(UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch))
            #expect(try writer.authorization(user: u1, app: maps, service: .camera)?.version == 2)
            let together = try writer.authorizationAndSettings(user: u1, app: maps, service: .camera, withSettings: true)
            #expect(together.stored?.status == .authorized && together.settings?.locationServicesEnabled == false)
            #expect(
                try writer.authorizations(matching: AuthorizationFilter(status: .authorized), after: nil, limit: 10).count == 1)
            let seq = try writer.append(.change(u1, maps, .camera))
            #expect(try writer.lastAuditSeq() == seq)
            #expect(try writer.audit(query: AuditQuery()).map(\.seq) == [seq])
            let policy = try Policy(
                id: PolicyID("p"), service: .camera, app: maps, user: nil, effect: .restrict, level: nil, updatedAt: epoch)
            try writer.save(policy)
            #expect(try writer.policies(service: .camera, app: maps, user: u1) == [policy])
            #expect(try writer.deletePolicy(id: policy.id))
            #expect(try writer.policies(service: .camera, app: maps, user: u1) == [])
        }
    }

    /// A write that commits on another thread while a read body runs is invisible to that body,
    /// in every query, and visible to the next read.
    @Test(arguments: StoreKind.allCases) func aReadSeesOneSnapshotWhileAWriteCommits(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let store = fixture.store
        let (u1, maps) = (u1, maps)
        try store.write { writer in
            try writer.save(self.record(u1))
            try writer.append(.change(u1, maps, .camera))
        }
        let snapshot = try store.read { reader -> Bool in
            let before = try self.view(reader)
            let committed = DispatchSemaphore(value: 0)
            Thread {
                do {
                    try store.write { writer in
                        try writer.save(self.record(u1, version: 2, status: .authorized))
                        try writer.save(self.record(try user("u2")))
                        try writer.save(UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch))
                        try writer.append(.change(u1, maps, .camera))
                    }
                } catch {
                    Issue.record("the write failed: \(error)")
                }
                committed.signal()
            }.start()
            #expect(committed.wait(timeout: .now() + 60) == .success, "a write waited for a read")
            let after = try self.view(reader)
            #expect(after == before)
            return after == before
        }
        #expect(snapshot)
        let later = try store.read { try self.view($0) }
        #expect(later.contains("version: 2") && later.contains("lastSeq 2"))
    }

    /// What a reader sees of `u1`, `u2` and the audit log.
    func view(_ reader: any PermissionReader) throws -> String {
        let together = try reader.authorizationAndSettings(user: u1, app: maps, service: .camera, withSettings: true)
        return [
            String(describing: together.stored), String(describing: together.settings),
            String(describing: try reader.authorization(user: u1, app: maps, service: .camera)),
            String(describing: try reader.authorizations(matching: AuthorizationFilter(app: maps), after: nil, limit: 10)),
            String(describing: try reader.userSettings(u1)),
            "lastSeq \(try reader.lastAuditSeq())", String(describing: try reader.audit(query: AuditQuery()).map(\.seq)),
        ].joined(separator: "\n")
    }

    /// Concurrent writes, some of whose bodies throw: exactly the rows and entries of the
    /// bodies that returned are kept, numbered without gaps.
    @Test(arguments: StoreKind.allCases) func concurrentWritesKeepExactlyTheBodiesThatReturned(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let store = fixture.store
        let maps = maps
        let kept = Collected<String>()
        let failures = Collected<String>()
        onThreads(8) { thread in
            for step in 0..<10 {
                let name = "t\(thread)-\(step)"
                do {
                    try store.write { writer in
                        let u = try user(name)
                        try writer.save(self.record(u))
                        try writer.append(.change(u, maps, .camera))
                        if step % 3 == 0 { throw Refused(code: step) }
                    }
                    kept.append(name)
                } catch is Refused {
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.elements.isEmpty, "\(failures.elements)")
        let records = try store.read { try $0.authorizations(matching: AuthorizationFilter(), after: nil, limit: 1000) }
        #expect(Set(records.map(\.user.rawValue)) == Set(kept.elements))
        let entries = try store.read { try $0.audit(query: AuditQuery(limit: 1000)) }
        #expect(entries.map(\.seq) == Array(1...Int64(kept.elements.count)))
        #expect(Set(entries.compactMap(\.user?.rawValue)) == Set(kept.elements))
        #expect(try store.verifyAuditChain(batchSize: 16, progress: nil).isIntact)
    }
}
