import Foundation

extension ChildProcess {
    /// What a child run to completion by ``run(_:_:environment:input:timeout:)`` left.
    package struct Completion: Sendable {
        /// How it ended (`.signaled(SIGKILL)` when it overran its time).
        package var termination: Termination
        package var standardOutput: String
        package var standardError: String
        /// True when it was still running after the time limit and was killed.
        package var timedOut: Bool

        /// The exit code, or 128 plus the signal's number (``Termination/status``).
        package var status: Int32 { termination.status }
    }

    /// Runs `executable` to completion with a hard time limit, after which it is killed by its
    /// PID. Its output goes to files in a temporary directory of its own (no pipe can fill up and
    /// block it), read back once it has ended, and the directory removed.
    /// - Parameters:
    ///   - arguments: its arguments.
    ///   - environment: its whole environment; nil inherits this process's.
    ///   - input: bytes for its standard input (`/dev/null` when nil).
    ///   - timeout: seconds before it is killed with SIGKILL.
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, input: String? = nil,
        timeout: Double
    ) throws -> Completion {
        var template = Array((FileManager.default.temporaryDirectory.path + "/child-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw SpawnError(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: created)
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        var inputPath: String?
        if let input {
            inputPath = directory + "/stdin"
            try Data(input.utf8).write(to: URL(fileURLWithPath: directory + "/stdin"))
        }
        let child = try ChildProcess(
            executable, arguments, environment: environment, standardInput: inputPath,
            standardOutput: directory + "/stdout", standardError: directory + "/stderr")
        var timedOut = false
        var termination = child.wait(timeout: timeout)
        if termination == nil {
            timedOut = true
            termination = child.killAndWait()
        }
        guard let termination else {
            throw SpawnError(description: "\(executable) (PID \(child.pid)) still runs 10 s after SIGKILL")
        }
        func read(_ name: String) -> String {
            String(decoding: FileManager.default.contents(atPath: directory + "/" + name) ?? Data(), as: UTF8.self)
        }
        return Completion(
            termination: termination, standardOutput: read("stdout"), standardError: read("stderr"), timedOut: timedOut)
    }
}
