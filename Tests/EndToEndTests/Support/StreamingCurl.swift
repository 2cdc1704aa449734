import Foundation
import LiveTestSupport
import TestProcesses

/// `curl -N` reading one streamed response (an event stream) in the background into a file;
/// killed by its PID and reaped when released (``ChildProcess``), so a failed test never leaves
/// it running.
final class StreamingCurl {
    let process: ChildProcess
    let outputURL: URL

    /// Starts `curl -sN` on `url` with `key` as its Bearer key.
    /// - Parameters:
    ///   - directory: where the received bytes go.
    ///   - timeout: curl's own `--max-time`, a backstop.
    ///   - headers: more header fields (`Name: value`).
    ///   - localPort: the port curl's end of the connection binds, to tell its packets apart.
    init(
        url: String, key: String, directory: URL, timeout: Int = 60, headers: [String] = [], localPort: Int? = nil
    ) throws {
        outputURL = directory.appendingPathComponent("stream-\(UUID().uuidString.prefix(6))")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        process = try ChildProcess(
            Paths.curl,
            ["-sN", "--max-time", String(timeout), "-H", "Authorization: Bearer \(key)"] + headers.flatMap { ["-H", $0] }
                + (localPort.map { ["--local-port", String($0)] } ?? []) + [url],
            standardOutput: outputURL.path)
    }

    /// What has arrived so far.
    var text: String {
        do {
            return try String(contentsOf: outputURL, encoding: .utf8)
        } catch {
            return "(unreadable: \(error))"
        }
    }

    /// Polls until `marker` has arrived or `timeout` seconds pass; true when it arrived.
    func waitFor(_ marker: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !text.contains(marker) {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// Polls until curl exits (the server ended the stream) or `timeout` seconds pass.
    func waitForExit(timeout: Double) -> Bool {
        process.wait(timeout: timeout) != nil
    }
}
