extension HTTPServer {
    /// Connections open now (accepted and not yet closed), for the open-connections gauge.
    public var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.count
    }
}
