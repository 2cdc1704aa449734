import Foundation
import StoreTestSupport
import TestSupport

@testable import SQLiteStore

/// A store in a fresh temporary directory; the directory goes when the fixture is released.
struct StoreFixture {
    let directory: TemporaryDirectory
    let store: SQLitePermissionStore

    init(configuration: DatabaseConfiguration = .init()) throws {
        directory = try TemporaryDirectory()
        store = try SQLitePermissionStore.open(
            path: directory.file("data/permissions.sqlite"), configuration: configuration, keyring: .forTests)
    }
}
