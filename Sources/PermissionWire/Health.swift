/// The body of `/healthz` (`{"status": "ok"}`) and `/readyz` (`{"status": "ready"}`).
public struct Health: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String) {
        self.status = status
    }
}
