#if canImport(Glibc)
internal import Glibc
#endif

extension Socket {
    /// Sets an integer socket option (`setsockopt(2)`).
    /// - Parameters:
    ///   - level: e.g. `SOL_SOCKET`, `IPPROTO_TCP`.
    ///   - option: e.g. `SO_REUSEADDR`, `TCP_NODELAY`.
    ///   - value: the integer value.
    ///   - name: the option's name for the error message.
    public func setOption(_ level: Int32, _ option: Int32, _ value: Int32, name: String) throws {
        var value = value
        guard setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SocketError.lastError("setsockopt \(name)")
        }
    }

    /// Disables Nagle's algorithm so small responses leave at once.
    public func setNoDelay() throws {
        try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "TCP_NODELAY")
    }

    /// Bounds how long bytes sent may stay unacknowledged before the kernel gives the connection
    /// up (`TCP_USER_TIMEOUT`, RFC 5482): a peer gone without a FIN or RST (a crashed host, a
    /// NAT or load balancer that forgot the connection) is then found within `milliseconds` of
    /// the next bytes sent to it, instead of after the kernel's retransmissions (about 15
    /// minutes). It bounds a zero window's probes too, as the server's write timeout does.
    public func setUserTimeout(milliseconds: Int) throws {
        let value = Int32(clamping: max(1, milliseconds))
        try setOption(Int32(IPPROTO_TCP), Int32(TCP_USER_TIMEOUT), value, name: "TCP_USER_TIMEOUT")
    }

    /// Puts the descriptor in non-blocking mode (`O_NONBLOCK`).
    public func setNonBlocking() throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { throw SocketError.lastError("fcntl F_GETFL") }
        guard fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SocketError.lastError("fcntl F_SETFL") }
    }

    /// Bounds blocking reads (`SO_RCVTIMEO`) and writes (`SO_SNDTIMEO`); for client sockets in tests.
    /// - Parameter milliseconds: the timeout; a timed-out read returns nil like `EAGAIN`.
    public func setTimeouts(milliseconds: Int) throws {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, size) == 0 else {
            throw SocketError.lastError("setsockopt SO_RCVTIMEO")
        }
        guard setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, size) == 0 else {
            throw SocketError.lastError("setsockopt SO_SNDTIMEO")
        }
    }

    /// Sets the kernel receive buffer size (`SO_RCVBUF`), e.g. small in tests of slow readers.
    public func setReceiveBufferSize(_ bytes: Int32) throws {
        try setOption(SOL_SOCKET, SO_RCVBUF, bytes, name: "SO_RCVBUF")
    }

    /// Makes the next `close()` abort the connection with RST and discard unsent data
    /// (`SO_LINGER` with a zero timeout): for peers that stopped reading.
    public func setAbortOnClose() throws {
        var value = linger(l_onoff: 1, l_linger: 0)
        guard setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size)) == 0 else {
            throw SocketError.lastError("setsockopt SO_LINGER")
        }
    }

    /// The local port the socket is bound to (`getsockname(2)`), e.g. after binding port 0.
    public func localPort() throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw SocketError.lastError("getsockname") }
        return SocketAddress.port(of: storage)
    }
}
