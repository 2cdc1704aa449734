import ArgumentParser
import PermissionClient

/// The exit codes of `permctl`, after sysexits(3).
enum ExitCodes {
    /// Success.
    static let ok: Int32 = 0
    /// Any HTTP error other than the ones below, an answer that cannot be read, or a failure
    /// another attempt meets again (a TLS certificate that does not verify, an answer larger than
    /// permctl reads: ``PermissionClientError/isPermanent``).
    static let failure: Int32 = 1
    /// EX_USAGE: bad arguments (also what ArgumentParser uses for parse errors).
    static let usage: Int32 = 64
    /// EX_NOINPUT: the key file (`--key-file`, `PERMISSION_KEY_FILE`) or the CA file (`--cacert`,
    /// `PERMISSION_CA_FILE`) cannot be read.
    static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: no connection, a timeout, a cut response, or an answer that says "later":
    /// 503, a proxy's 502 or 504, 429 (too many requests, too many streams); or too many calls
    /// at once. A script may retry after it.
    static let unavailable: Int32 = 69
    /// EX_CANTCREAT: an output file (or the standard output a download goes to) cannot be written.
    static let cantCreate: Int32 = 73
    /// EX_NOPERM: the key was refused (401) or is not allowed (403).
    static let denied: Int32 = 77

    /// The exit code for a client error.
    static func code(for error: PermissionClientError) -> Int32 {
        switch error {
        case .transport where error.isPermanent: failure
        case .transport, .callQueueFull: unavailable
        case .http(let status, _, _) where status == 401 || status == 403: denied
        case .http(let status, _, _) where [429, 502, 503, 504].contains(status): unavailable
        case .http, .decoding, .beyondLogHead, .logDiverged: failure
        case .invalidArgument: usage
        }
    }
}
