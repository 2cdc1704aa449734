public import PermissionWire

/// Every failure of a `PermissionClient` call, one type with cases a caller can switch on.
///
/// - `transport`: the request did not complete (refused, timed out, cut in the middle, TLS);
///   `code` is the libcurl `CURLcode` (see https://curl.se/libcurl/c/libcurl-errors.html).
/// - `http`: the server answered with a status outside 2xx; `problem` is the decoded
///   `application/problem+json` body (RFC 9457) when there was one.
/// - `decoding`: a 2xx answer whose body is not the documented shape (malformed, truncated JSON).
/// - `invalidArgument`: the call could not be built (a base URL that is not http or https, or
///   that libcurl cannot parse).
/// - `beyondLogHead`: the change feed was asked to resume after `position` (the last entry it
///   saw, or its `after`), or an audit page was asked for entries after `position` (its
///   `after`), but the log ends at `head` (`409 beyond-log-head`): the server's database was
///   restored from an earlier backup, and its entries after `head` may reuse seqs already seen.
///   Drop what was derived from the log and read it again from 0 (or after `head`).
/// - `logDiverged`: a position was sent with the hash of the entry read there (the feed does so
///   on every reconnect; an audit page with `afterHash`), and the log's entry at `position` has
///   another (`409 log-diverged`): the server's database was restored from an earlier backup
///   and has grown past `position` again with new entries. Drop what was derived from the log
///   and read it again from 0 (or after `head`).
/// - `callQueueFull`: an async call found every one of the client's `threads` call threads
///   busy and `queued` calls already waiting for one (`Configuration.maxCallThreads`,
///   `maxQueuedCalls`), and failed at once without sending anything: the server is slow or not
///   answering, or the backend makes more calls at once than the threads and the queue hold.
///   Back off or shed load; raising the limits only lets more calls wait.
public enum PermissionClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case transport(code: Int, message: String, requestId: String?)
    case http(status: Int, problem: Problem?, requestId: String?)
    case decoding(status: Int, message: String, requestId: String?)
    case invalidArgument(String)
    case beyondLogHead(position: Int64, head: Int64, requestId: String?)
    case logDiverged(position: Int64, head: Int64, requestId: String?)
    case callQueueFull(threads: Int, queued: Int)

    /// The libcurl code returned when a call was cancelled (`CURLE_ABORTED_BY_CALLBACK`).
    public static let cancelledCode = 42
    /// The libcurl code of a timeout (`CURLE_OPERATION_TIMEDOUT`).
    public static let timedOutCode = 28
    /// The libcurl code of a refused or unreachable connection (`CURLE_COULDNT_CONNECT`).
    public static let couldNotConnectCode = 7
    /// The code of a download whose sink did not take the bytes, a failed `write(2)` or a
    /// closure that returned `false` (libcurl's `CURLE_WRITE_ERROR`).
    public static let writeFailedCode = 23

    /// The HTTP status of an `http` or `decoding` failure.
    public var status: Int? {
        switch self {
        case .http(let status, _, _), .decoding(let status, _, _): status
        case .beyondLogHead, .logDiverged: 409
        case .transport, .invalidArgument, .callQueueFull: nil
        }
    }

    /// The stable problem type of an `http` failure, when the server sent one.
    public var problemType: ProblemType? {
        if case .http(_, let problem?, _) = self { return problem.problemType }
        if case .beyondLogHead = self { return .beyondLogHead }
        if case .logDiverged = self { return .logDiverged }
        return nil
    }

    /// The request id of the failed call (the server's echo when it answered, else the one sent).
    public var requestId: String? {
        switch self {
        case .transport(_, _, let id), .http(_, _, let id), .decoding(_, _, let id), .beyondLogHead(_, _, let id),
            .logDiverged(_, _, let id):
            id
        case .invalidArgument, .callQueueFull: nil
        }
    }

    /// Whether the call was cancelled (its task was cancelled, or a stream was stopped).
    public var isCancelled: Bool {
        if case .transport(let code, _, _) = self { return code == Self.cancelledCode }
        return false
    }

    /// Whether the call ran out of time (connect or total timeout).
    public var isTimeout: Bool {
        if case .transport(let code, _, _) = self { return code == Self.timedOutCode }
        return false
    }

    /// Whether the key was refused (401) or is not allowed to do this (403).
    public var isAccessDenied: Bool { status == 401 || status == 403 }

    /// Whether another attempt would fail the same way, whatever the server does meanwhile: a
    /// URL libcurl refuses, a TLS peer or setup it refuses (the certificate does not verify, a
    /// pinned key differs, a bad CA file), or an answer larger than the client reads
    /// (``tooLargeCode``). Not worth retrying later.
    public var isPermanent: Bool {
        guard case .transport(let code, _, _) = self else { return false }
        return code == Self.tooLargeCode || RetryPolicy.permanentCodes.contains(code)
    }

    /// libcurl's `CURLE_FILESIZE_EXCEEDED`: the answer's body was larger than the client reads
    /// into memory (16 MiB; a download to a sink has no such bound).
    public static let tooLargeCode = 63

    public var description: String {
        switch self {
        case .transport(let code, let message, let id):
            return "transport error \(code): \(message)" + Self.suffix(id)
        case .http(let status, let problem, let id):
            guard let problem else { return "HTTP \(status)" + Self.suffix(id) }
            return "HTTP \(status) \(problem.title): \(problem.detail)" + Self.suffix(id)
        case .decoding(let status, let message, let id):
            return "cannot decode the HTTP \(status) answer: \(message)" + Self.suffix(id)
        case .invalidArgument(let message):
            return "invalid argument: \(message)"
        case .beyondLogHead(let position, let head, let id):
            return "the position \(position) in the audit log is beyond its end (\(head)): a position read "
                + "from another server, mistyped, or kept from before the server's database was restored from "
                + "an earlier backup; start over" + Self.suffix(id)
        case .logDiverged(let position, let head, let id):
            return "the audit log's entry \(position) is not the one read there (the log now ends at \(head)): the "
                + "server's database was restored from an earlier backup; start over" + Self.suffix(id)
        case .callQueueFull(let threads, let queued):
            return "too many calls at once: all \(threads) call threads are busy and \(queued) calls already wait "
                + "for one; nothing was sent"
        }
    }

    private static func suffix(_ requestId: String?) -> String {
        requestId.map { " (request id \($0))" } ?? ""
    }
}
