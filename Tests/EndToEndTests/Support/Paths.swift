import Foundation
import LiveTestSupport

/// Where the end-to-end tests find the repository, the built server and the tools they drive.
enum Paths {
    /// The repository root: the nearest directory above this file that holds Package.swift.
    static let repositoryRoot: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// The `permission-server` binary (``BuiltProducts/serverBinary``).
    static var serverBinary: String { BuiltProducts.serverBinary }

    static let curl = "/usr/bin/curl"
    static let python = "/usr/bin/python3"
    static let sqlite3 = "/usr/bin/sqlite3"

    /// A fresh temporary directory, removed by the caller with `removeTemporary`.
    static func makeTemporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("permission-e2e-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func removeTemporary(_ url: URL) {
        do { try FileManager.default.removeItem(at: url) } catch {
            // A leftover temp directory is harmless; note it for whoever reads the test log.
            FileHandle.standardError.write(Data("e2e: could not remove \(url.path): \(error)\n".utf8))
        }
    }
}
