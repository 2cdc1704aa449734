/// A listening address bound before the server that will serve it exists, so that a process
/// can find the address taken before it does slow or lasting work (opening and migrating a
/// database, creating its key). The socket is bound but does not listen: connections to it
/// are refused until ``HTTPServer/start(on:)`` makes it listen, and binding it fails while
/// another socket listens on the address.
///
/// It is an early check, not a hold: the socket is bound with `SO_REUSEADDR` and does not
/// listen, so another process may still bind the address meanwhile, and then whichever listens
/// second fails (``HTTPServer/start(on:)`` throws).
///
/// It owns its socket: noncopyable, so that one server at most starts on it, and closing the
/// socket when it is dropped without a server started on it.
public struct ReservedAddress: ~Copyable {
    /// The port bound: the real one when port 0 was asked for.
    public let port: Int
    /// The port asked for, which the server's configuration must name too (0 for any).
    let requestedPort: Int
    private let socket: Socket

    /// Binds `host`:`port` (0 for any free port).
    /// - Throws: `SocketError` when the address cannot be bound (in use, bad host, no permission).
    public init(host: String, port: Int) throws {
        let socket = try Socket.bound(host: host, port: port)
        let bound: Int
        do {
            bound = try socket.localPort()
        } catch {
            try? socket.close()
            throw error
        }
        self.socket = socket
        self.port = bound
        requestedPort = port
    }

    deinit { try? socket.close() }

    /// Makes the socket listen and hands it to the caller, who owns it from then on.
    consuming func listen(backlog: Int32) throws -> Socket {
        let socket = self.socket
        discard self
        do {
            try socket.listen(backlog: backlog)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }
}
