/// A filter over stored authorization records: every given field must match. Listings are
/// ordered by (user, app, service) and paged by keyset (`after` an `AuthorizationKey`).
///
/// `status` filters on the STORED status (notDetermined, denied, authorized), which SQL can
/// index; the service's listings compute the effective status themselves (see
/// `PermissionService.authorizations(matching:after:limit:)`).
public struct AuthorizationFilter: Hashable, Sendable {
    public var user: UserID?
    public var app: AppID?
    public var service: ServiceID?
    public var status: AuthorizationStatus?

    public init(user: UserID? = nil, app: AppID? = nil, service: ServiceID? = nil, status: AuthorizationStatus? = nil) {
        self.user = user
        self.app = app
        self.service = service
        self.status = status
    }

    /// Whether `record` passes the filter.
    public func matches(_ record: StoredAuthorization) -> Bool {
        (user == nil || user == record.user) && (app == nil || app == record.app)
            && (service == nil || service == record.service) && (status == nil || status == record.status)
    }
}
