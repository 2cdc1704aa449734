import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct StoreLifecycleTests {
    @Test func openCreatesTheDirectoryMigratesAndIsReady() throws {
        let fixture = try StoreFixture()
        #expect(FileManager.default.fileExists(atPath: fixture.directory.file("data/permissions.sqlite")))
        try fixture.store.checkReady()
        let applied = try fixture.store.pool.read { try PermissionSchema.migrations.appliedIDs($0) }
        #expect(applied == SQLitePermissionStore.knownMigrations)
        // Opening again applies nothing and keeps the data.
        let u = try user("u1"), a = try app("com.a.b")
        _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) }
        let again = try SQLitePermissionStore.open(path: fixture.store.path, keyring: .forTests)
        #expect(try again.read { try $0.lastAuditSeq() } == 1)
        #expect(try SQLitePermissionStore.migrate(path: fixture.store.path, keyring: .forTests) == [])
    }

    /// Ready means the file takes durable writes: a check commits a write of its own (the
    /// writer's commit count moves), and a file deleted or replaced under the store, or a file
    /// system with less free space than the store needs, is not ready.
    @Test func readyMeansTheFileTakesDurableWrites() throws {
        let fixture = try StoreFixture()
        let commits = fixture.store.pool.writer.currentStatistics.commits
        try fixture.store.checkReady()
        #expect(fixture.store.pool.writer.currentStatistics.commits == commits + 1, "the check committed a write")
        #expect(throws: SQLiteError.self) { try fixture.store.checkReady(minimumFreeBytes: .max) }
        let path = fixture.store.path
        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        #expect(throws: SQLiteError.self) { try fixture.store.checkReady() }
        try FileManager.default.moveItem(atPath: path + ".moved", toPath: path)
        try fixture.store.checkReady()
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: SQLiteError.self) { try fixture.store.checkReady() }
    }

    @Test func migrateSubcommandPreparesAFreshFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nested/deeper/p.sqlite")
        #expect(try SQLitePermissionStore.migrate(path: path, keyring: .forTests) == SQLitePermissionStore.knownMigrations)
        #expect(try SQLitePermissionStore.migrate(path: path, keyring: .forTests) == [])
        try SQLitePermissionStore.open(path: path, keyring: .forTests).checkReady()
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.sqlite")
        _ = try SQLitePermissionStore.open(path: path, keyring: .forTests)
        let database = try Database(path: path, mode: .readWrite)
        try database.execute("INSERT INTO schema_migrations (id, applied_order) VALUES ('99-from-the-future', 99)")
        #expect(throws: MigrationError.databaseNewerThanCode(unknownIDs: ["99-from-the-future"])) {
            _ = try SQLitePermissionStore.open(path: path, keyring: .forTests)
        }
    }

    @Test func notReadyWhenMigrationsArePending() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("p.sqlite"))
        #expect(throws: MigrationError.self) { try pool.read { try PermissionSchema.migrations.checkMigrated($0) } }
    }

    @Test func backupOfALiveStoreHasTheSameRows() throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.a.b")
        try fixture.store.write { writer in
            for index in 0..<500 {
                try writer.save(
                    StoredAuthorization(
                        user: try user("u\(index)"), app: a, service: .camera, status: .denied,
                        reason: .userSet, updatedAt: epoch, version: 1))
                try writer.append(.change(u, a, .camera))
            }
        }
        let copied = Collected<Int>()
        let destination = fixture.directory.file("backup/permissions.sqlite")
        try FileManager.default.createDirectory(atPath: fixture.directory.file("backup"), withIntermediateDirectories: true)
        try fixture.store.backup(to: destination) { pages, _ in copied.append(pages) }
        #expect(!copied.elements.isEmpty)
        let copy = try SQLitePermissionStore.open(path: destination, keyring: .forTests)
        try copy.checkReady()
        #expect(try copy.read { try $0.lastAuditSeq() } == 500)
        let records = try copy.read { try $0.authorizations(matching: AuthorizationFilter(app: a), after: nil, limit: 1_000) }
        let original = try fixture.store.read {
            try $0.authorizations(matching: AuthorizationFilter(app: a), after: nil, limit: 1_000)
        }
        #expect(records.count == 500)
        #expect(records == original)
    }

    @Test func hotPathReadFindsTheRightRecordAmong100kRows() throws {
        let fixture = try StoreFixture()
        let apps = try (0..<10).map { try app("com.bulk.app\($0)") }
        let services: [ServiceID] = [.camera, .location, .photos, .contacts, .microphone]
        // 2,000 users x 10 apps x 5 services = 100,000 records with distinct versions, built in
        // SQL (saving them one by one takes long in a debug build).
        try fixture.store.pool.write { database in
            try database.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
                INSERT INTO authorizations (user, app, service, status, level, provisional, once, expires_at, reason,
                                            purpose, declined_levels, updated_at, version)
                SELECT 'user-' || (i / 50), 'com.bulk.app' || ((i / 5) % 10),
                       CASE i % 5 WHEN 0 THEN 'camera' WHEN 1 THEN 'location' WHEN 2 THEN 'photos'
                                  WHEN 3 THEN 'contacts' ELSE 'microphone' END,
                       CASE WHEN i % 2 = 0 THEN 'authorized' ELSE 'denied' END,
                       CASE WHEN i % 2 = 0 THEN 'full' END, 0, 0, NULL, 'userSet', NULL, '', 1795000000000, i + 1
                FROM n
                """)
        }
        // One record saved through the store on top of the bulk rows.
        let saved = StoredAuthorization(
            user: try user("user-1500"), app: apps[4], service: .photos, status: .authorized,
            level: .limited, reason: .userConsent, purpose: try purpose("Pick photos."),
            updatedAt: epoch, version: 1_000_000)
        try fixture.store.write { try $0.save(saved) }
        let probes = [(0, 0, 0), (1234, 7, 3), (1999, 9, 4), (777, 2, 1), (1, 0, 2)]
        for (userIndex, appIndex, serviceIndex) in probes {
            let found = try fixture.store.read {
                try $0.authorization(user: try user("user-\(userIndex)"), app: apps[appIndex], service: services[serviceIndex])
            }
            let index = userIndex * 50 + appIndex * 5 + serviceIndex
            #expect(found?.version == Int64(index + 1))
            #expect(found?.status == (index % 2 == 0 ? .authorized : .denied))
            #expect(found?.user.rawValue == "user-\(userIndex)")
            #expect(found?.app == apps[appIndex])
            #expect(found?.service == services[serviceIndex])
        }
        #expect(try fixture.store.read { try $0.authorization(user: saved.user, app: saved.app, service: .photos) } == saved)
        #expect(
            try fixture.store.read { try $0.authorization(user: try user("user-2000"), app: apps[0], service: .camera) } == nil)
        let count = try fixture.store.pool.read { db in
            try db.withStatement("SELECT count(*) FROM authorizations") { try $0.step() ? $0.int(at: 0) : 0 }
        }
        #expect(count == 100_000)
    }
}
