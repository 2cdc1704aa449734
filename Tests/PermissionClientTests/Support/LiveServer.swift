import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built `permission-server` (from the products directory next to this test binary) as a
/// child process: `--port 0` and its own temporary database; the port comes from its
/// "listening on 127.0.0.1:PORT" line; an admin key is bootstrapped from the environment. `stop()` (or release) kills it by PID and removes the
/// directory; startup is bounded in time.
final class LiveServer: @unchecked Sendable {
    struct StartupError: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let directory: URL
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }
    /// The admin key the server creates at start (`PERMISSION_BOOTSTRAP_ADMIN_KEY`).
    let adminKey = "client-tests-admin-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")

    /// The products directory: where this test binary and the package's executables are.
    static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The path of a built executable of the package, e.g. `permctl`.
    static func binary(_ name: String) -> String {
        productsDirectory.appendingPathComponent(name).path
    }

    init(timeout: Duration = .seconds(20)) throws {
        let binary = Self.binary("permission-server")
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw StartupError(description: "\(binary) is not built (swift build --product permission-server)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("permclient-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("server.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw StartupError(description: "cannot create \(log.path)")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--port", "0", "--host", "127.0.0.1", "--database", directory.appendingPathComponent("db.sqlite").path]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        environment["PERMISSION_BOOTSTRAP_ADMIN_KEY"] = adminKey
        process.environment = environment
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        var found: Int?
        while ContinuousClock.now < deadline, process.isRunning {
            let text = Self.read(log)
            if let range = text.range(of: "listening on 127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
                if found != nil { break }
            }
            usleep(20_000)
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let text = Self.read(log)
            throw StartupError(description: "permission-server did not report its port; log:\n\(text)")
        }
        port = found
    }

    /// The log so far, or why it cannot be read.
    static func read(_ url: URL) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            return "(log unreadable: \(error))"
        }
    }

    private let stopLock = NSLock()
    private var stopped = false  // guarded by stopLock

    /// Kills the server by PID, waits for it, and removes its directory. Only the first call
    /// does anything: tests stop the server themselves and release stops it again.
    func stop() {
        let first = stopLock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            FileHandle.standardError.write(Data("client tests: could not remove \(directory.path): \(error)\n".utf8))
        }
    }

    deinit { stop() }
}
