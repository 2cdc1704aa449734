import Foundation
import PermissionClient
import PermissionWire

/// Printing: aligned tables for people, the API's JSON (one line per value) for scripts, and
/// errors on stderr prefixed with `permctl:`.
enum Output {
    /// Prints `rows` under `headers`, columns padded to their widest cell; what the server sent
    /// (app names, purpose strings) with its control characters written out (``visible(_:)``).
    static func table(_ headers: [String], _ rows: [[String]]) {
        let rows = rows.map { $0.map(visible) }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                text += isLast ? cell : cell.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0)
            }
            return text
        }
        print(line(headers))
        for row in rows { print(line(row)) }
    }

    /// Prints `key: value` lines, keys aligned.
    static func fields(_ pairs: [(String, String)]) {
        let width = pairs.map(\.0.count).max() ?? 0
        for (key, value) in pairs {
            print((key + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0) + visible(value))
        }
    }

    /// Prints `value` as compact JSON with sorted keys, as the API writes it.
    static func json<T: Encodable>(_ value: T) {
        do {
            print(String(decoding: try WireEncoder.encode(value), as: UTF8.self))
        } catch {
            self.error("cannot encode the answer as JSON: \(error)")
        }
    }

    /// Prints `value` (a JSON object) with `member` added last when it is not nil, e.g. the
    /// entity-tag a script needs for `--if-match`, which the object itself does not carry.
    static func json<T: Encodable>(_ value: T, adding member: (name: String, value: String?)) {
        do {
            var bytes = try WireEncoder.encode(value)
            if let extra = member.value, bytes.last == UInt8(ascii: "}") {
                bytes.removeLast()
                if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
                bytes += try WireEncoder.encode(member.name) + [UInt8(ascii: ":")] + (try WireEncoder.encode(extra))
                bytes.append(UInt8(ascii: "}"))
            }
            print(String(decoding: bytes, as: UTF8.self))
        } catch {
            self.error("cannot encode the answer as JSON: \(error)")
        }
    }

    /// The C library's `stdout`, which `print` writes through and buffers. Swift 6 refuses to
    /// name the C global (shared mutable state), so it is looked up once by its symbol, which
    /// glibc exports (`dlsym` with `RTLD_DEFAULT`, the null handle); nil if it could not be.
    nonisolated(unsafe) static let standardOutput: UnsafeMutablePointer<FILE>? = {
        guard let symbol = dlsym(nil, "stdout") else { return nil }
        return symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee
    }()

    /// Why the standard output could not be written, as `standardOutputWritten()` found it
    /// (the error of the failed flush, taken at once).
    nonisolated(unsafe) private(set) static var outputFailure = "an earlier write failed"

    /// Whether everything printed so far reached the standard output (`fflush`, `ferror`): a
    /// full disk, a closed pipe.
    static func standardOutputWritten() -> Bool {
        let flushed = standardOutput.map { fflush($0) } ?? fflush(nil)
        if flushed != 0 { outputFailure = String(cString: strerror(errno)) }
        return flushed == 0 && (standardOutput.map { ferror($0) == 0 } ?? true)
    }

    /// After a command that succeeded: exits 73 when what it printed could not be written, so
    /// that `permctl keys create > full-disk/key.json` never exits 0 with the secret lost.
    static func finishStandardOutput() {
        guard !standardOutputWritten() else { return }
        error("cannot write the standard output: \(outputFailure)")
        exit(ExitCodes.cantCreate)
    }

    /// After a page printed as a table: the option that continues it, when there is more (the
    /// JSON form carries the cursor itself).
    static func more(after cursor: String?) {
        if let cursor { print("(more: --after \(cursor))") }
    }

    /// Writes `message` to stderr.
    /// Control characters in it (a problem's title or detail from a hostile server or proxy,
    /// say: an escape sequence would reach the terminal) are shown as `\u{1B}` and the like, and
    /// so are line breaks: the message is one line, and no text of the server's starts a
    /// second one that looks like permctl's own.
    /// Written with write(2): `FileHandle.write` traps when the write fails (a closed pipe, with
    /// SIGPIPE ignored), and a message nobody can read is no reason to crash.
    static func error(_ message: String) {
        let line = Array(("permctl: " + visible(message) + "\n").utf8)
        _ = line.withUnsafeBytes { PermissionClient.writeAll($0, to: STDERR_FILENO) }
    }

    /// A failed call on stderr: as ``error(_:)`` writes it, or with `--json` as one JSON object
    /// for scripts (``Failure``).
    static func failure(_ failure: PermissionClientError, json: Bool) {
        guard json else { return error(failure.description) }
        do {
            let line = try WireEncoder.encode(Failure(failure)) + [UInt8(ascii: "\n")]
            _ = line.withUnsafeBytes { PermissionClient.writeAll($0, to: STDERR_FILENO) }
        } catch {
            self.error(failure.description)
        }
    }

    /// What `--json` writes to stderr for a failed call: `error` names the kind
    /// (``PermissionClientError``'s case), `message` is the line permctl prints without
    /// `--json`; `status` and `problem` (the server's `application/problem+json`, as sent) for an
    /// answer, `code` (libcurl's) for a transport failure, `position` and `head` for a log that
    /// is not the one read before, `requestId` when there was a request.
    struct Failure: Encodable {
        let error: String
        let message: String
        var status: Int?
        var problem: Problem?
        var code: Int?
        var position: Int64?
        var head: Int64?
        var requestId: String?

        init(_ failure: PermissionClientError) {
            message = failure.description
            switch failure {
            case .transport(let code, _, let requestId):
                (error, self.code, self.requestId) = ("transport", code, requestId)
            case .http(let status, let problem, let requestId):
                (error, self.status, self.problem, self.requestId) = ("http", status, problem, requestId)
            case .decoding(let status, _, let requestId):
                (error, self.status, self.requestId) = ("decoding", status, requestId)
            case .invalidArgument:
                error = "invalidArgument"
            case .beyondLogHead(let position, let head, let requestId):
                (error, self.position, self.head, self.requestId) = ("beyondLogHead", position, head, requestId)
            case .logDiverged(let position, let head, let requestId):
                (error, self.position, self.head, self.requestId) = ("logDiverged", position, head, requestId)
            case .callQueueFull:
                error = "callQueueFull"
            }
        }
    }

    /// `text` with its control characters (C0, the line feed included, DEL, C1), the line and
    /// paragraph separators and the directional formatting ones (U+202A-U+202E, U+2066-U+2069)
    /// written out as `\u{XX}`, so that a terminal shows them instead of acting on them,
    /// reordering the text around them, or starting a line a server's text could make look like
    /// permctl's own.
    static func visible(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                output += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// An RFC 3339 timestamp, or `-`.
    static func time(_ date: Date?) -> String { date.map(Timestamp.format) ?? "-" }

    /// The status with its level and flags: `authorized (always, provisional)`.
    static func status(_ authorization: Authorization) -> String {
        var details: [String] = []
        if let level = authorization.level { details.append(level) }
        if authorization.provisional { details.append("provisional") }
        if authorization.once { details.append("once") }
        let status = authorization.status.rawValue
        return details.isEmpty ? status : "\(status) (\(details.joined(separator: ", ")))"
    }

    /// The fields of one authorization.
    static func authorization(_ authorization: Authorization, etag: String? = nil) {
        var pairs: [(String, String)] = [
            ("user", authorization.user), ("app", authorization.app), ("service", authorization.service),
            ("status", status(authorization)), ("reason", authorization.reason.rawValue),
            ("purpose", authorization.purpose ?? "-"),
            ("purpose language", authorization.purposeLanguage ?? "-"), ("expires", time(authorization.expiresAt)),
            ("updated", time(authorization.updatedAt)), ("version", String(authorization.version)),
        ]
        if authorization.purposeChanged == true {
            pairs.insert(("purpose changed", "yes: the app's purpose string is no longer this one"), at: 7)
        }
        if let etag { pairs.append(("etag", etag)) }
        fields(pairs)
    }

    /// One table row of a prompt; a location alert's kind carries the background uses it shows
    /// (`locationAlert(backgroundUses=14)`), without spaces so that the columns stay split.
    static func promptRow(_ prompt: Prompt) -> [String] {
        [
            prompt.id, prompt.user, prompt.app, prompt.service, promptKind(prompt), prompt.level, prompt.state.rawValue,
            prompt.options.joined(separator: ","), time(prompt.expiresAt),
        ]
    }

    /// The KIND cell: the kind, with the background use count of a location alert.
    static func promptKind(_ prompt: Prompt) -> String {
        guard let uses = prompt.backgroundUses else { return prompt.kind.rawValue }
        return "\(prompt.kind.rawValue)(backgroundUses=\(uses))"
    }

    static let promptHeaders = ["ID", "USER", "APP", "SERVICE", "KIND", "LEVEL", "STATE", "OPTIONS", "EXPIRES"]
}
