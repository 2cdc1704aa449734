/// The identity of an authorization: one per (user, app, service). Also the keyset cursor of
/// authorization listings, which are ordered by (user, app, service).
public struct AuthorizationKey: Hashable, Comparable, Sendable {
    public let user: UserID
    public let app: AppID
    public let service: ServiceID

    public init(user: UserID, app: AppID, service: ServiceID) {
        self.user = user
        self.app = app
        self.service = service
    }

    public static func < (lhs: AuthorizationKey, rhs: AuthorizationKey) -> Bool {
        (lhs.user.rawValue, lhs.app.rawValue, lhs.service.rawValue)
            < (rhs.user.rawValue, rhs.app.rawValue, rhs.service.rawValue)
    }
}
