import Foundation
import TestProcesses

/// Runs the built `permctl` as a child process (``ChildProcess``) with `PERMISSION_URL` (and
/// optionally `PERMISSION_KEY`) set, bounded in time (killed by PID when it overruns).
enum Permctl {
    struct Result {
        /// The exit code, or 128 plus the signal's number (killed at the time limit: 137).
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// - Parameter extra: more variables (`PERMISSION_KEY_FILE`), set after the others.
    static func run(
        _ arguments: [String], url: String?, key: String? = nil, extra: [String: String] = [:], timeout: Double = 20
    ) throws -> Result {
        let done = try ChildProcess.run(
            LiveServer.binary("permctl"), arguments,
            environment: environment(url: url, key: key).merging(extra) { $1 }, timeout: timeout)
        return Result(status: done.status, stdout: done.standardOutput, stderr: done.standardError)
    }

    /// Starts `permctl` and returns it running, its output going to files; the caller reads
    /// them while it runs, and waits for it or kills it (release kills it).
    static func start(_ arguments: [String], url: String?, key: String?) throws -> Running {
        try Running(arguments, environment: environment(url: url, key: key))
    }

    /// `PERMISSION_URL` and `PERMISSION_KEY` as given; `PERMISSION_*` of the test process are not
    /// inherited.
    private static func environment(url: String?, key: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        if let url { environment["PERMISSION_URL"] = url }
        if let key { environment["PERMISSION_KEY"] = key }
        return environment
    }

    /// A `permctl` that runs on (`audit --follow`), with its standard output and error in files of
    /// a temporary directory, which release removes after killing it.
    final class Running {
        let process: ChildProcess
        private let directory: URL

        fileprivate init(_ arguments: [String], environment: [String: String]) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("permctl-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            do {
                process = try ChildProcess(
                    LiveServer.binary("permctl"), arguments, environment: environment,
                    standardOutput: directory.appendingPathComponent("stdout").path,
                    standardError: directory.appendingPathComponent("stderr").path)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
        }

        deinit {
            process.killAndWait()
            try? FileManager.default.removeItem(at: directory)
        }

        /// The standard output so far.
        var stdoutSoFar: String { soFar("stdout") }

        /// The standard error so far.
        var stderrSoFar: String { soFar("stderr") }

        private func soFar(_ name: String) -> String {
            String(
                decoding: FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data(),
                as: UTF8.self)
        }
    }
}
