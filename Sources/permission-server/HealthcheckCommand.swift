import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `permission-server healthcheck`: `GET /readyz` on `--host`/`--port` over a plain socket with
/// a timeout; exit 0 on `200`, else 1. Used by the container's HEALTHCHECK, so no curl is needed.
/// A wildcard listen address (`0.0.0.0`, `::`) is probed on the matching loopback address.
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the server on --host/--port answers GET /readyz with 200, else 1."
    )

    @Option(help: ArgumentHelp("Seconds to wait for the whole exchange.", valueName: "seconds"))
    var timeout: Double = 3

    @Option(help: ArgumentHelp("The path to probe.", valueName: "path"))
    var path: String = "/readyz"

    @OptionGroup var options: SettingOptions<SettingsScopes.Healthcheck>

    func validate() throws {
        guard timeout > 0, timeout <= 300 else { throw ValidationError("--timeout must be in (0, 300] seconds") }
        guard path.hasPrefix("/"), !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else {
            throw ValidationError("--path must be an absolute path without spaces")
        }
    }

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        let host =
            switch configuration.host {
            case "0.0.0.0": "127.0.0.1"
            case "::", "[::]": "::1"
            default: configuration.host
            }
        do {
            let status = try HealthProbe(host: host, port: configuration.port, timeout: timeout).status(of: path)
            guard status == 200 else {
                print("unhealthy: GET \(path) answered \(status)")
                throw ExitCode.failure
            }
            print("healthy: GET \(path) answered 200")
        } catch let error as HealthProbe.Failure {
            print("unhealthy: \(error.message)")
            throw ExitCode.failure
        }
    }
}

/// One HTTP/1.1 exchange on a blocking socket bounded by `SO_SNDTIMEO`/`SO_RCVTIMEO`
/// (socket(7); on Linux the send timeout also bounds `connect`).
struct HealthProbe {
    struct Failure: Error { let message: String }

    let host: String
    let port: Int
    let timeout: Double

    /// Sends `GET path` with `Connection: close` and returns the status code of the answer.
    func status(of path: String) throws(Failure) -> Int {
        let fd = try connect()
        defer { _ = Glibc.close(fd) }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\nUser-Agent: permission-server-healthcheck\r\n\r\n"
                .utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("send")
            }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !received.contains(0x0A), received.count < 8192 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("recv")
            }
            if n == 0 { break }
            received += buffer[0..<n]
        }
        // "HTTP/1.1 200 OK": the status code is the second token (RFC 9112 §4).
        let line = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let code = Int(parts[1]) else {
            throw Failure(message: "no HTTP status line from \(authority) (got \(received.count) bytes)")
        }
        return code
    }

    private func connect() throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let first = list else {
            throw Failure(message: "cannot resolve \(host): \(String(cString: gai_strerror(code)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = Failure(message: "no address for \(host)")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 {
                lastError = failure("socket")
                continue
            }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            lastError = failure("connect to \(host):\(port)")
            _ = Glibc.close(fd)
        }
        throw lastError
    }

    private func failure(_ operation: String) -> Failure {
        let code = errno
        return Failure(message: "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
