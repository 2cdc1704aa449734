/// The body of `POST /v1/users/{user}/apps/{app}/lifecycle` (SPEC §4 Lifecycle).
public struct LifecycleEvent: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["event"]

    public var event: Event

    public init(event: Event) {
        self.event = event
    }

    /// `sessionEnded` ends Allow Once grants; `reinstalled` resets location;
    /// `backgroundLocationUsed` issues the upgrade prompt for a provisional Always grant.
    public enum Event: String, WireEnum {
        case sessionEnded, reinstalled, backgroundLocationUsed
    }
}
