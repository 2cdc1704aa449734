import Foundation
import LiveTestSupport
import PermissionWire
import TestProcesses

/// The result of one finished child process.
struct ProcessResult: Sendable {
    /// The exit code, or 128 plus the signal's number (a child killed at its time limit: 137).
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the run hit its time limit and the child was killed.
    var timedOut: Bool
}

/// Runs child processes (``ChildProcess``) with their output in temporary files (no pipe can
/// fill up) and a hard time limit, after which the child is killed by its PID.
enum Subprocess {
    /// Runs `executable` to completion.
    /// - Parameters:
    ///   - executable: absolute path.
    ///   - arguments: its arguments.
    ///   - environment: variables added to (or replacing) this process's environment.
    ///   - stdin: bytes written to the child's standard input, if any.
    ///   - timeout: seconds before the child is killed.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        stdin: String? = nil, timeout: Double = 30
    ) throws -> ProcessResult {
        let done = try ChildProcess.run(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            input: stdin, timeout: timeout)
        return ProcessResult(
            status: done.status, stdout: done.standardOutput, stderr: done.standardError, timedOut: done.timedOut)
    }

    /// `curl -sS` with a time limit; arguments follow.
    static func curl(_ arguments: [String], timeout: Double = 10) throws -> ProcessResult {
        try run(Paths.curl, ["-sS", "--max-time", String(Int(timeout))] + arguments, timeout: timeout + 5)
    }

    /// `curl` with the admin key of `ServerProcess` (every `/v1` call needs a key, SPEC §6).
    static func adminCurl(_ arguments: [String], timeout: Double = 10) throws -> ProcessResult {
        try curl(["-H", "Authorization: Bearer \(ServerProcess.adminKey)"] + arguments, timeout: timeout)
    }

    /// Runs a Python 3 script given as text, with `arguments` in `sys.argv[1:]`.
    static func python(
        _ script: String, _ arguments: [String] = [], timeout: Double = 60, stdin: String? = nil
    ) throws -> ProcessResult {
        try run(Paths.python, ["-c", script] + arguments, stdin: stdin, timeout: timeout)
    }

    /// The object on one line of JSON output, or nil for a line that is not a JSON object
    /// (logs mix in other lines; callers count what they need and assert on the counts).
    static func jsonObject(_ line: Substring) -> [String: JSONValue]? {
        do {
            return try StrictJSON.parse(Array(line.utf8)).objectValue
        } catch {
            return nil
        }
    }
}
