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

    /// Idle connections closed since the start to make room for a new one at the connection
    /// cap (`maxConnections`).
    public var reclaimedConnections: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return reclaimedCount
    }

    /// The worker threads alive now, running a request or a stream (`busy`) or waiting for one
    /// (`idle`); both 0 before `start()`.
    public var workerThreads: (busy: Int, idle: Int) {
        lock.lock()
        let workers = environment?.workers
        lock.unlock()
        guard let statistics = workers?.statistics else { return (0, 0) }
        return (statistics.running, statistics.threads - statistics.running)
    }

    /// Connections open now from one remote address that count against its share.
    /// - Parameter address: the numeric address without the port, e.g. "127.0.0.1".
    public func openConnections(from address: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return addressShares.admitted(address)
    }
}
