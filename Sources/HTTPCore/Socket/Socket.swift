#if canImport(Glibc)
internal import CEpoll
internal import Glibc
#endif

/// A thin value over a socket file descriptor (see FlyingFox `Socket.swift`). Every failed
/// syscall throws `SocketError` with `errno` and `strerror`. The struct does not own the
/// descriptor: exactly one owner calls `close()`.
public struct Socket: Sendable, Hashable {
    /// The file descriptor.
    public let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    /// Creates a listening TCP socket bound to `host`:`port` (port 0 picks a free port).
    /// The socket is non-blocking with `SO_REUSEADDR` set.
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address ("127.0.0.1", "0.0.0.0", "::1", "::") or a host name.
    ///   - port: the TCP port, 0 for any free one.
    ///   - backlog: the kernel accept queue length (`listen(2)`).
    public static func listen(host: String, port: Int, backlog: Int32) throws -> Socket {
        let socket = try bound(host: host, port: port)
        do {
            try socket.listen(backlog: backlog)
        } catch {
            _ = Glibc.close(socket.fd)
            throw error
        }
        return socket
    }

    /// Creates a TCP socket bound to `host`:`port` (port 0 picks a free port), with
    /// `SO_REUSEADDR` set, that does not listen yet: a connection to it is refused until
    /// ``listen(backlog:)``, and binding it fails while another socket listens on the address.
    public static func bound(host: String, port: Int) throws -> Socket {
        let address = try SocketAddress.resolve(host: host, port: port, passive: true)
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.lastError("socket") }
        let socket = Socket(fd: fd)
        do {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1, name: "SO_REUSEADDR")
            try address.withSockAddr { pointer, length in
                guard Glibc.bind(fd, pointer, length) == 0 else { throw SocketError.lastError("bind \(host):\(port)") }
            }
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        return socket
    }

    /// Makes a bound socket listen (`listen(2)`, a `backlog` long accept queue) and non-blocking.
    public func listen(backlog: Int32) throws {
        guard Glibc.listen(fd, backlog) == 0 else { throw SocketError.lastError("listen") }
        try setNonBlocking()
    }

    /// Connects a blocking TCP client socket (used by tests and tools, never on the server path).
    /// - Parameters:
    ///   - host: numeric address or host name.
    ///   - port: the TCP port.
    ///   - source: a local numeric address to connect from (e.g. "127.0.0.2", as the whole of
    ///     127/8 is loopback on Linux), or nil for the one the kernel picks.
    public static func connect(host: String, port: Int, from source: String? = nil) throws -> Socket {
        let address = try SocketAddress.resolve(host: host, port: port, passive: false)
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError.lastError("socket") }
        do {
            if let source {
                let local = try SocketAddress.resolve(host: source, port: 0, passive: false)
                try local.withSockAddr { pointer, length in
                    guard Glibc.bind(fd, pointer, length) == 0 else { throw SocketError.lastError("bind \(source)") }
                }
            }
            try address.withSockAddr { pointer, length in
                guard Glibc.connect(fd, pointer, length) == 0 else { throw SocketError.lastError("connect \(host):\(port)") }
            }
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        return Socket(fd: fd)
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec socket.
    /// - Returns: the socket, the peer as "ip:port" ("[ip]:port" for IPv6) and its address
    ///   alone ("ip"), or nil when none is pending (`EAGAIN`, or a connection aborted before it
    ///   was accepted).
    public func accept() throws -> (socket: Socket, peer: String, address: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
        }
        if client < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED { return nil }
            throw SocketError.lastError("accept")
        }
        let socket = Socket(fd: client)
        do {
            // accept4 is not visible without _GNU_SOURCE; set the flags the portable way.
            guard fcntl(client, F_SETFD, FD_CLOEXEC) == 0 else { throw SocketError.lastError("fcntl F_SETFD") }
            try socket.setNonBlocking()
        } catch {
            _ = Glibc.close(client)
            throw error
        }
        let address = SocketAddress.host(of: storage)
        return (socket, SocketAddress.describe(storage, host: address), address)
    }

    /// Reads up to `count` bytes into `buffer`.
    /// - Returns: the byte count, 0 at end of stream, or nil when nothing is available (`EAGAIN`).
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int? {
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw SocketError.lastError("read")
        }
    }

    /// Sends bytes with `MSG_NOSIGNAL` (a closed peer yields `EPIPE`, never `SIGPIPE`).
    /// - Returns: the bytes sent, or nil when the send buffer is full (`EAGAIN`).
    public func send(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let n = Glibc.send(fd, base, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw SocketError.lastError("send")
        }
    }

    /// Sends every byte, blocking (for blocking client sockets in tests and tools).
    public func sendAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = try bytes.withUnsafeBytes { raw throws -> Int? in
                try send(UnsafeRawBufferPointer(rebasing: raw[sent...]))
            }
            guard let n else { throw SocketError(operation: "send", code: EAGAIN, message: "send timed out") }
            sent += n
        }
    }

    /// Waits until the socket is writable or `timeoutMilliseconds` pass (`poll(2)`).
    /// - Returns: true when writable (or in error, which the next send reports), false on timeout.
    public func waitWritable(timeoutMilliseconds: Int32) throws -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let n = poll(&descriptor, 1, timeoutMilliseconds)
            if n >= 0 { return n > 0 }
            if errno == EINTR { continue }
            throw SocketError.lastError("poll")
        }
    }

    /// The bytes of the send queue the peer has not acknowledged yet (`SIOCOUTQ`), nil when
    /// they cannot be read. They fall while the peer reads, even when the socket is not reported
    /// writable (Linux reports that only once a third of a large send buffer is free).
    public func unacknowledgedBytes() -> Int? {
        let count = cepoll_unacknowledged_bytes(fd)
        return count >= 0 ? Int(count) : nil
    }

    /// Whether the socket is readable now (`poll(2)` without waiting): for a listener, whether
    /// a connection waits in its backlog. False when it cannot be told.
    public func isReadableNow() -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    /// The bytes received and not read yet (`SIOCINQ`), nil when they cannot be read.
    public func unreadBytes() -> Int? {
        let count = cepoll_unread_bytes(fd)
        return count >= 0 ? Int(count) : nil
    }

    /// Shuts down one or both directions (`shutdown(2)`); `SHUT_WR` sends FIN (RFC 9112 §9.6).
    public func shutdown(_ how: Int32) throws {
        guard Glibc.shutdown(fd, how) == 0 else { throw SocketError.lastError("shutdown") }
    }

    /// Closes the descriptor.
    public func close() throws {
        guard Glibc.close(fd) == 0 else { throw SocketError.lastError("close") }
    }
}
