import Foundation
import PermissionDomain
@testable import SQLiteStore

/// A store in a fresh temporary directory; the directory goes when the fixture is released.
struct StoreFixture {
    let directory: TemporaryDirectory
    let store: SQLitePermissionStore

    init(configuration: DatabaseConfiguration = .init()) throws {
        directory = try TemporaryDirectory()
        store = try SQLitePermissionStore.open(path: directory.file("data/permissions.sqlite"), configuration: configuration, keyring: .forTests)
    }
}

/// Validated ids for tests; the literals are well-formed.
func user(_ raw: String) throws -> UserID { try UserID(raw) }
func app(_ raw: String) throws -> AppID { try AppID(raw) }
func service(_ raw: String) throws -> ServiceID { try ServiceID(raw) }
func purpose(_ raw: String) throws -> PurposeString { try PurposeString(raw) }

/// A fixed instant, whole milliseconds.
let epoch = Date(millisecondsSince1970: 1_795_000_000_000)

extension AuditEntry {
    /// An authorization change entry for tests.
    static func change(_ user: UserID, _ app: AppID, _ service: ServiceID, at: Date = epoch, action: AuditAction = .authorizationSet)
        -> AuditEntry
    {
        AuditEntry(
            at: at, actor: Actor(keyId: "k1", role: "consent"), action: action, user: user, app: app, service: service,
            from: AuthorizationSnapshot(status: .notDetermined), to: AuthorizationSnapshot(status: .denied),
            reason: .userSet, requestId: "req-1")
    }
}
