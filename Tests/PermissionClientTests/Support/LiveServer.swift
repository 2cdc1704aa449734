import Foundation
import LiveTestSupport

/// The built `permission-server` (``ServerProcess``) with its own temporary directory and
/// database, and an admin key of its own bootstrapped from the environment. `stop()` (or
/// release) kills it by PID and removes the directory.
final class LiveServer: @unchecked Sendable {
    // @unchecked: `server` and `directory` are immutable; `stopped` is guarded by `stopLock`.
    let server: ServerProcess
    let directory: URL
    var port: Int { server.port }
    var url: String { server.baseURL }
    /// The admin key the server creates at start (`PERMISSION_BOOTSTRAP_ADMIN_KEY`).
    let adminKey = "client-tests-admin-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")

    /// The path of a built executable of the package, e.g. `permctl`.
    static func binary(_ name: String) -> String { BuiltProducts.binary(name) }

    /// - Parameter environment: more `PERMISSION_*` settings for the server, e.g.
    ///   `PERMISSION_LOCATION_ALERT_INTERVALS`.
    init(timeout: Duration = .seconds(20), environment: [String: String] = [:]) throws {
        let binary = BuiltProducts.serverBinary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServerProcess.StartupError(description: "\(binary) is not built (swift build --product permission-server)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("permclient-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try ServerProcess(
            database: directory.appendingPathComponent("db.sqlite").path, directory: directory,
            environment: environment.merging(["PERMISSION_BOOTSTRAP_ADMIN_KEY": adminKey]) { _, own in own },
            timeout: Double(timeout.components.seconds))
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
        server.killNow()
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            FileHandle.standardError.write(Data("client tests: could not remove \(directory.path): \(error)\n".utf8))
        }
    }

    deinit { stop() }
}
