/// One question of an access evaluation (AuthZEN Authorization API 1.0 §6, SPEC §11): may
/// `app` use `service` of `user`, at `level` or above? nil `level` asks for any level (the
/// service's weakest or above).
public struct AccessQuery: Hashable, Sendable {
    public let user: UserID
    public let app: AppID
    public let service: ServiceID
    public let level: Level?

    public init(user: UserID, app: AppID, service: ServiceID, level: Level? = nil) {
        self.user = user
        self.app = app
        self.service = service
        self.level = level
    }
}
