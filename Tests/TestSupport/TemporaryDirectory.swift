import Foundation

/// A fresh directory under the system temporary directory, removed when released.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("permission-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A file path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    deinit {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            // Leaving a temporary directory behind does not affect the test result.
        }
    }
}
