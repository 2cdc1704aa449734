import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A Unix-socket proxy in front of a PostgreSQL server's socket that can be frozen: while
/// frozen it keeps every connection open and accepts new ones, but forwards no byte either
/// way, as a server that stopped answering (a stopped process, a stalled disk) looks to its
/// clients, whose kernels still acknowledge every packet. ``stop()`` closes everything.
final class FreezingProxy: Sendable {
    /// The directory of the proxy's socket, named as PostgreSQL names its own
    /// (`.s.PGSQL.<port>`): a connection string's `host`.
    let directory: String
    private let listener: Int32
    private let target: String
    private let frozen = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let descriptors = Mutex<[Int32]>([])

    /// - Parameters:
    ///   - serverDirectory: the directory of the server's socket.
    ///   - port: the port that names the socket file, the proxy's too.
    init(serverDirectory: String, port: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgproxy-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        target = "\(serverDirectory)/.s.PGSQL.\(port)"
        listener = try Self.socket(bindingTo: "\(directory)/.s.PGSQL.\(port)")
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Rewrites `connectionString`'s `host=` to the proxy's directory.
    func route(_ connectionString: String, serverDirectory: String) -> String {
        connectionString.replacingOccurrences(of: "host=\(serverDirectory)", with: "host=\(directory)")
    }

    func freeze() { frozen.store(true, ordering: .sequentiallyConsistent) }
    func thaw() { frozen.store(false, ordering: .sequentiallyConsistent) }

    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in descriptors.withLock({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? Self.socket(connectingTo: target) else {
                close(client)
                continue
            }
            descriptors.withLock { $0 += [client, server] }
            Thread.detachNewThread { [self] in pump(from: client, to: server) }
            Thread.detachNewThread { [self] in pump(from: server, to: client) }
        }
    }

    /// Copies bytes from `source` to `sink`, holding each read while frozen; ends both ways
    /// when either side closes.
    private func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            while frozen.load(ordering: .sequentiallyConsistent) && !stopped.load(ordering: .sequentiallyConsistent) {
                usleep(10_000)
            }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(sink, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { break }
                sent += written
            }
            guard sent == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
    }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
        }
        return address
    }

    private static func socket(bindingTo path: String) throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        return descriptor
    }

    private static func socket(connectingTo path: String) throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        return descriptor
    }
}
