import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `permctl` as a child process with `PERMISSION_URL` (and optionally
/// `PERMISSION_KEY`) set, bounded in time (killed by PID when it overruns).
enum Permctl {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], url: String?, key: String? = nil, timeout: Double = 20) throws -> Result {
        let (process, collector) = try start(arguments, url: url, key: key)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let (stdout, stderr) = collector.finish()
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Starts `permctl` and returns it running, with its stdout and stderr collected; the caller
    /// waits for it or kills it. `PERMISSION_*` of the test process are not inherited.
    static func start(_ arguments: [String], url: String?, key: String?) throws -> (Process, OutputCollector) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LiveServer.binary("permctl"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        if let url { environment["PERMISSION_URL"] = url }
        if let key { environment["PERMISSION_KEY"] = key }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, OutputCollector(out: out, err: err))
    }
}

/// Reads a child's stdout and stderr on background threads so that full pipes never block it.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let group = DispatchGroup()

    init(out: Pipe, err: Pipe) {
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    self.lock.lock()
                    if isOut { self.out.append(chunk) } else { self.err.append(chunk) }
                    self.lock.unlock()
                }
                self.group.leave()
            }
        }
    }

    /// The stdout collected so far.
    var stdoutSoFar: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: out, as: UTF8.self)
    }

    /// Waits (bounded) for both pipes to close and returns everything.
    func finish() -> (String, String) {
        _ = group.wait(timeout: .now() + 5)
        lock.lock()
        defer { lock.unlock() }
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
