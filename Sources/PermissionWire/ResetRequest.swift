/// The body of `POST /v1/reset` (SPEC §4 Reset, `tccutil reset SERVICE [BUNDLE_ID]`):
/// `service` is a service id or `all`; `app` and `user` narrow it when present.
public struct ResetRequest: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["service", "app", "user"]

    public var service: String
    public var app: String?
    public var user: String?

    public init(service: String, app: String? = nil, user: String? = nil) {
        self.service = service
        self.app = app
        self.user = user
    }
}
