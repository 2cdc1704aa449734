import Foundation

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

    /// The `permission-server` binary: `PERMISSION_SERVER_BINARY` when set, else the one in the
    /// build products directory that holds this test bundle (`.build/debug/...xctest`).
    static var serverBinary: String {
        if let path = ProcessInfo.processInfo.environment["PERMISSION_SERVER_BINARY"], !path.isEmpty { return path }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // On Linux the test bundle is an executable in the products directory; on Darwin it is
        // a bundle whose executable sits a few levels down.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("permission-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return executable.deletingLastPathComponent().appendingPathComponent("permission-server").path
    }

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
