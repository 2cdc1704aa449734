#if canImport(Glibc)
internal import Glibc
#endif

/// An IPv4 or IPv6 socket address resolved with `getaddrinfo(3)`.
struct SocketAddress {
    var family: Int32
    var storage: sockaddr_storage
    var length: socklen_t

    /// Resolves `host` (numeric or a name) and `port` to the first TCP address.
    /// - Parameters:
    ///   - passive: true for an address to bind (`AI_PASSIVE`).
    static func resolve(host: String, port: Int, passive: Bool) throws -> SocketAddress {
        guard (0...65535).contains(port) else {
            throw SocketError(operation: "resolve \(host):\(port)", code: 0, message: "port out of range")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw SocketError(operation: "getaddrinfo \(host)", code: rc, message: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        let length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(length)))
        }
        return SocketAddress(family: first.pointee.ai_family, storage: storage, length: length)
    }

    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) throws -> R {
        var copy = storage
        return try withUnsafePointer(to: &copy) { pointer throws -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws -> R in
                try body(address, length)
            }
        }
    }

    /// The port of an IPv4 or IPv6 address in host byte order.
    static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port both sit right after the 2-byte family.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }

    /// The numeric address of an IPv4 or IPv6 socket address, without the port ("127.0.0.1",
    /// "::1"), or "unknown" for another family.
    static func host(of storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        return withUnsafeMutableBytes(of: &storage) { raw -> String in
            guard let base = raw.baseAddress else { return "unknown" }
            if family == AF_INET {
                let address = base.assumingMemoryBound(to: sockaddr_in.self)
                inet_ntop(AF_INET, &address.pointee.sin_addr, &text, socklen_t(text.count))
                return Self.string(text)
            } else if family == AF_INET6 {
                let address = base.assumingMemoryBound(to: sockaddr_in6.self)
                inet_ntop(AF_INET6, &address.pointee.sin6_addr, &text, socklen_t(text.count))
                return Self.string(text)
            }
            return "unknown"
        }
    }

    /// "ip:port" (IPv6 as "[ip]:port") for logs and `RequestContext.remoteAddress`.
    /// - Parameter host: `host(of: storage)`, when the caller has it already.
    static func describe(_ storage: sockaddr_storage, host: String? = nil) -> String {
        let host = host ?? self.host(of: storage)
        let family = Int32(storage.ss_family)
        let port = String(self.port(of: storage))
        if family == AF_INET { return host + ":" + port }
        if family == AF_INET6 { return "[" + host + "]:" + port }
        return "unknown"
    }

    /// The text `inet_ntop` wrote: the bytes before its NUL terminator.
    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
