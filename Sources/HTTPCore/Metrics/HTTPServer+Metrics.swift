extension HTTPServer {
    /// Connections open now (accepted and not yet closed), for the open-connections gauge.
    public var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.count
    }

    /// Connections refused for being over their address's share (`maxConnectionsPerAddress`)
    /// since the start: answered 429, or closed at once when too many such answers were open.
    public var refusedConnections: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return refusedCount
    }

    /// Connections open now from one remote address that count against its share.
    /// - Parameter address: the numeric address without the port, e.g. "127.0.0.1".
    public func openConnections(from address: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return addressShares.admitted(address)
    }
}
