package import Foundation
package import TestProcesses

/// The built `permission-server`, started as a child process (``ChildProcess``) on `127.0.0.1`
/// port 0 with its own database file: the live tier's harness, for the end-to-end and the client
/// tests. The bound port is read from its "listening on" log line. The process is killed by PID
/// and reaped when the value is released, so a failed test never leaves it running.
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

    package let process: ChildProcess
    package let logURL: URL
    package private(set) var port = 0

    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package var pid: Int32 { process.pid }

    /// Starts the server and waits (bounded) for it to listen.
    /// - Parameters:
    ///   - database: the database file.
    ///   - directory: where the log file goes.
    ///   - extraArguments: more flags after `serve --host 127.0.0.1 --port 0 --database ...`.
    ///   - environment: variables added to the child's environment.
    ///   - umask: when set (octal, e.g. `"022"`), the server starts under this file mode
    ///     creation mask (through `/bin/sh`, which `exec`s it: the PID stays the server's).
    ///   - openFiles: when set, the server starts with this soft and hard open-file limit
    ///     (`RLIMIT_NOFILE`, through `prlimit`, which `exec`s it: the PID stays the server's).
    ///   - timeout: seconds to wait for the listening line.
    package init(
        database: String, directory: URL, extraArguments: [String] = [], environment: [String: String] = [:],
        umask: String? = nil, openFiles: (soft: Int, hard: Int)? = nil, timeout: Double = 20
    ) throws {
        logURL = directory.appendingPathComponent("server-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database] + extraArguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        env["PERMISSION_BOOTSTRAP_ADMIN_KEY"] = Self.adminKey
        if database.hasPrefix("postgres"), environment["PERMISSION_AUDIT_KEY_FILE"] == nil,
            !extraArguments.contains("--audit-key-file")
        {
            env["PERMISSION_AUDIT_KEY"] = Self.auditKey
        }
        env.merge(environment) { _, new in new }
        process =
            if let openFiles {
                try ChildProcess(
                    "/usr/bin/prlimit",
                    ["--nofile=\(openFiles.soft):\(openFiles.hard)", "--", BuiltProducts.serverBinary] + arguments,
                    environment: env, standardOutput: logURL.path, standardError: logURL.path)
            } else if let umask {
                try ChildProcess(
                    "/bin/sh", ["-c", "umask \(umask) && exec \"$0\" \"$@\"", BuiltProducts.serverBinary] + arguments,
                    environment: env, standardOutput: logURL.path, standardError: logURL.path)
            } else {
                try ChildProcess(
                    BuiltProducts.serverBinary, arguments, environment: env, standardOutput: logURL.path,
                    standardError: logURL.path)
            }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = Self.listeningPort(in: log()) {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        let ended = process.killAndWait()
        throw StartupError(
            description:
                "server did not report its port (\(ended.map(String.init(describing:)) ?? "still running")); log:\n\(log())")
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

    /// Sends `signal` to the server's PID (unless it has exited and been reaped).
    package func send(_ signal: Int32) {
        process.kill(signal)
    }

    /// Waits for the server to exit; its exit status (the code, or 128 plus the signal's number
    /// as a shell reports it: ``ChildProcess/Termination/status``), or nil if it still runs
    /// after `timeout`.
    package func waitForExit(timeout: Double) -> Int32? {
        process.wait(timeout: timeout)?.status
    }

    /// Kills the server with SIGKILL and reaps it, waiting at most 10 s.
    package func killNow() {
        process.killAndWait(timeout: 10)
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
