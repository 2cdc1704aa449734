public import Foundation
public import PermissionWire

/// Every operation of openapi.yaml as an `Endpoint`, for `PermissionClient.send(_:)` and
/// `sendBlocking(_:)`. Ids go into the path percent-encoded (RFC 3986 §3.3). This file holds
/// the user-side operations; `Endpoints+Admin.swift` the operator-side ones.
public enum Endpoints {
    static func authorizationPath(_ user: String, _ app: String, _ service: String) -> String {
        PathEncoding.path("v1", "users", user, "apps", app, "authorizations", service)
    }

    /// `GET /v1/users/{user}/apps/{app}/authorizations/{service}`: the effective authorization.
    public static func authorization(user: String, app: String, service: String) -> Endpoint<Authorization> {
        .json("GET", authorizationPath(user, app, service))
    }

    /// The same read as `authorization`, decoded to the status alone without building dates:
    /// the hot-path check.
    public static func status(user: String, app: String, service: String) -> Endpoint<AccessStatus> {
        Endpoint(method: "GET", path: authorizationPath(user, app, service)) { raw throws(WireDecodingError) in
            try AccessStatus.decode(raw.body)
        }
    }

    /// `PUT .../authorizations/{service}`: change it in settings, optionally `If-Match`.
    public static func setAuthorization(
        user: String, app: String, service: String, _ change: SettingsChange,
        ifMatch: String? = nil
    ) -> Endpoint<Authorization> {
        .json("PUT", authorizationPath(user, app, service), body: jsonBody(change), headers: ifMatchField(ifMatch))
    }

    /// `POST .../authorizations/{service}/request`: an app asks for `level` (200 or 202).
    public static func requestAccess(user: String, app: String, service: String, level: String) -> Endpoint<RequestOutcome> {
        .json("POST", authorizationPath(user, app, service) + "/request", body: jsonBody(AccessRequest(level: level)))
    }

    /// `POST .../authorizations/location/button`: the user pressed the app's location button
    /// (200 `granted` or `unchanged`, or 202 `prompted` with the button's prompt).
    public static func pressLocationButton(
        user: String, app: String, service: String = "location"
    )
        -> Endpoint<LocationButtonResult>
    {
        .json("POST", authorizationPath(user, app, service) + "/button")
    }

    /// `POST .../authorizations/{service}/revoke`: deny (`userSet`), optionally `If-Match`.
    public static func revoke(user: String, app: String, service: String, ifMatch: String? = nil) -> Endpoint<Authorization> {
        .json("POST", authorizationPath(user, app, service) + "/revoke", headers: ifMatchField(ifMatch))
    }

    /// `GET /v1/users/{user}/authorizations`: a page of a user's authorizations across apps.
    public static func authorizations(
        user: String, status: Authorization.Status? = nil, service: String? = nil,
        after: String? = nil, limit: Int? = nil
    ) -> Endpoint<AuthorizationList> {
        .json(
            "GET",
            PathEncoding.query(
                PathEncoding.path("v1", "users", user, "authorizations"),
                [
                    ("status", status?.rawValue), ("service", service), ("after", after), ("limit", limit.map(String.init)),
                ]))
    }

    /// `GET /v1/apps/{app}/services/{service}/users`: every user's authorization of one app.
    public static func authorizations(
        app: String, service: String, status: Authorization.Status? = nil,
        after: String? = nil, limit: Int? = nil
    ) -> Endpoint<AuthorizationList> {
        .json(
            "GET",
            PathEncoding.query(
                PathEncoding.path("v1", "apps", app, "services", service, "users"),
                [
                    ("status", status?.rawValue), ("after", after), ("limit", limit.map(String.init)),
                ]))
    }

    /// `GET /v1/users/{user}/prompts`: a user's prompts, oldest first.
    public static func prompts(
        user: String, state: Prompt.State? = nil, after: String? = nil,
        limit: Int? = nil
    ) -> Endpoint<PromptList> {
        .json(
            "GET",
            PathEncoding.query(
                PathEncoding.path("v1", "users", user, "prompts"),
                [
                    ("state", state?.rawValue), ("after", after), ("limit", limit.map(String.init)),
                ]))
    }

    /// `GET /v1/prompts/{id}`.
    public static func prompt(id: String) -> Endpoint<Prompt> {
        .json("GET", PathEncoding.path("v1", "prompts", id))
    }

    /// `POST /v1/prompts/{id}/decision`: answer a pending prompt; `until` makes the grant end
    /// then (an expiring grant).
    public static func decide(prompt id: String, choice: String, until: Date? = nil) -> Endpoint<DecisionResult> {
        .json(
            "POST", PathEncoding.path("v1", "prompts", id, "decision"),
            body: jsonBody(Decision(choice: choice, until: until)))
    }

    /// `POST /v1/users/{user}/apps/{app}/lifecycle`; `usedAt` (sent as RFC 3339, within the
    /// past 3 days) dates a `backgroundLocationUsed` report, absent: now.
    public static func lifecycle(
        user: String, app: String, event: LifecycleEvent.Event, usedAt: Date? = nil
    ) -> Endpoint<LifecycleResult> {
        .json(
            "POST", PathEncoding.path("v1", "users", user, "apps", app, "lifecycle"),
            body: jsonBody(LifecycleEvent(event: event, usedAt: usedAt)))
    }

    /// `GET /v1/users/{user}/settings`.
    public static func settings(user: String) -> Endpoint<UserSettings> {
        .json("GET", PathEncoding.path("v1", "users", user, "settings"))
    }

    /// `PUT /v1/users/{user}/settings`: the Location Services switch.
    public static func setSettings(user: String, _ settings: UserSettings) -> Endpoint<UserSettings> {
        .json("PUT", PathEncoding.path("v1", "users", user, "settings"), body: jsonBody(settings))
    }

    static func ifMatchField(_ etag: String?) -> [(name: String, value: String)] {
        etag.map { [(name: "If-Match", value: $0)] } ?? []
    }
}
