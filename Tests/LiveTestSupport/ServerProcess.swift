package import Foundation

/// The built `permission-server`, started as a child process on `127.0.0.1` port 0 with its
/// own database file: the live tier's harness, for the end-to-end and the client tests. The bound port is read from its "listening on" log line. The process is
/// killed by PID when the value is released, so a failed test never leaves it running.
package final class ServerProcess {
    package struct StartupError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    /// The admin key every server started here gets (`PERMISSION_BOOTSTRAP_ADMIN_KEY`, SPEC §6)
    /// unless `environment` names another.
    package static let adminKey = "e2e-admin-key-0123456789abcdefghijklmnopqrstuvwxyz"
    /// The audit server key every server on PostgreSQL started here gets (`PERMISSION_AUDIT_KEY`,
    /// SPEC §12: replicas share one) unless `environment` or `extraArguments` name a key file. On SQLite the server makes
    /// its own key file beside the database.
    package static let auditKey = "ZTJlLWF1ZGl0LWtleS0wMTIzNDU2Nzg5YWJjZGVmMDE="

    package let process = Process()
    package let logURL: URL
    package private(set) var port = 0

    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package var pid: Int32 { process.processIdentifier }

    /// Starts the server and waits (bounded) for it to listen.
    /// - Parameters:
    ///   - database: the database file.
    ///   - directory: where the log file goes.
    ///   - extraArguments: more flags after `serve --host 127.0.0.1 --port 0 --database ...`.
    ///   - environment: variables added to the child's environment.
    ///   - umask: when set (octal, e.g. `"022"`), the server starts under this file mode
    ///     creation mask (through `/bin/sh`, which `exec`s it: the PID stays the server's).
    ///   - timeout: seconds to wait for the listening line.
    package init(
        database: String, directory: URL, extraArguments: [String] = [], environment: [String: String] = [:],
        umask: String? = nil, timeout: Double = 20
    ) throws {
        logURL = directory.appendingPathComponent("server-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database] + extraArguments
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask) && exec \"$0\" \"$@\"", BuiltProducts.serverBinary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: BuiltProducts.serverBinary)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        env["PERMISSION_BOOTSTRAP_ADMIN_KEY"] = Self.adminKey
        if database.hasPrefix("postgres"), environment["PERMISSION_AUDIT_KEY_FILE"] == nil,
            !extraArguments.contains("--audit-key-file")
        {
            env["PERMISSION_AUDIT_KEY"] = Self.auditKey
        }
        env.merge(environment) { _, new in new }
        process.environment = env
        let output = try FileHandle(forWritingTo: logURL)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = Self.listeningPort(in: log()) {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        let text = log()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw StartupError(description: "server did not report its port; log:\n\(text)")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The server's log so far.
    package func log() -> String {
        do {
            return try String(contentsOf: logURL, encoding: .utf8)
        } catch {
            return "(log unreadable: \(error))"
        }
    }

    /// The log once it contains `text` (lines logged after "listening on", such as the metrics
    /// listener's), or as it is after `timeout` seconds.
    package func log(waitingFor text: String, timeout: Double = 10) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var current = log()
        while !current.contains(text), Date() < deadline, process.isRunning {
            usleep(20_000)
            current = log()
        }
        return current
    }

    /// Sends `signal` to the server's PID.
    package func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the server to exit; its exit status, or nil if it still runs after `timeout`.
    package func waitForExit(timeout: Double) -> Int32? {
        guard process.waitForExit(timeout: timeout) else { return nil }
        return process.terminationStatus
    }

    /// Kills the server with SIGKILL and reaps it, waiting at most 10 s for Foundation to see the
    /// exit. Foundation learns of a child's exit when a socket the child holds closes; a process
    /// started at the same moment (a server of another test, PostgreSQL) can inherit that socket
    /// and keep it open, and `waitUntilExit()` then waits as long as that process lives (a run
    /// hung in `ReplicaTests` so). After the wait, the exited child is reaped here instead.
    package func killNow() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGKILL)
        if !process.waitForExit(timeout: 10) {
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)  // SIGKILL cannot be refused: the child is exiting or a zombie
        }
    }

    /// The port in the first "listening on HOST:PORT" line of `log`.
    package static func listeningPort(in log: String) -> Int? {
        guard let range = log.range(of: "listening on ") else { return nil }
        let rest = log[range.upperBound...]
        let authority = rest.prefix { !$0.isWhitespace && $0 != "\"" }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return Int(authority[authority.index(after: colon)...])
    }
}
