public import PermissionWire

extension Endpoints {
    /// `GET /v1/services`: the catalogue.
    public static func services() -> Endpoint<ServiceList> { .json("GET", "/v1/services") }

    /// `GET /v1/services/{service}`.
    public static func service(_ id: String) -> Endpoint<ServiceDefinition> {
        .json("GET", PathEncoding.path("v1", "services", id))
    }

    /// `PUT /v1/services/{service}`: define or replace a custom service.
    public static func putService(_ id: String, _ registration: ServiceRegistration) -> Endpoint<ServiceDefinition> {
        .json("PUT", PathEncoding.path("v1", "services", id), body: jsonBody(registration))
    }

    /// `GET /v1/apps`: a page of registered apps.
    public static func apps(after: String? = nil, limit: Int? = nil) -> Endpoint<AppList> {
        .json("GET", PathEncoding.query("/v1/apps", [("after", after), ("limit", limit.map(String.init))]))
    }

    /// `GET /v1/apps/{app}`.
    public static func app(_ id: String) -> Endpoint<App> { .json("GET", PathEncoding.path("v1", "apps", id)) }

    /// `PUT /v1/apps/{app}`: register an app and its purpose strings.
    public static func registerApp(_ id: String, _ registration: AppRegistration) -> Endpoint<App> {
        .json("PUT", PathEncoding.path("v1", "apps", id), body: jsonBody(registration))
    }

    /// `GET /v1/apps/{app}/purpose-changed`: a page of the app's grants given under a purpose
    /// string it has since changed (cursor `<user>/<service>`).
    public static func purposeChanged(app: String, after: String? = nil, limit: Int? = nil) -> Endpoint<AuthorizationList> {
        .json(
            "GET",
            PathEncoding.query(
                PathEncoding.path("v1", "apps", app, "purpose-changed"),
                [
                    ("after", after), ("limit", limit.map(String.init)),
                ]))
    }

    /// `GET /v1/policies`: a page of policies.
    public static func policies(after: String? = nil, limit: Int? = nil) -> Endpoint<PolicyList> {
        .json("GET", PathEncoding.query("/v1/policies", [("after", after), ("limit", limit.map(String.init))]))
    }

    /// `GET /v1/policies/{id}`.
    public static func policy(id: String) -> Endpoint<Policy> { .json("GET", PathEncoding.path("v1", "policies", id)) }

    /// `PUT /v1/policies/{id}`: create or replace a policy.
    public static func putPolicy(id: String, _ definition: PolicyDefinition) -> Endpoint<Policy> {
        .json("PUT", PathEncoding.path("v1", "policies", id), body: jsonBody(definition))
    }

    /// `DELETE /v1/policies/{id}` (204).
    public static func deletePolicy(id: String) -> Endpoint<Void> { .empty("DELETE", PathEncoding.path("v1", "policies", id)) }

    /// `POST /v1/reset`: `tccutil reset SERVICE [BUNDLE_ID]`, optionally for one user.
    public static func reset(service: String, app: String? = nil, user: String? = nil) -> Endpoint<ResetResult> {
        .json("POST", "/v1/reset", body: jsonBody(ResetRequest(service: service, app: app, user: user)))
    }

    /// `DELETE /v1/users/{user}`: erase everything stored about a user (GDPR Art. 17); their
    /// audit entries stay, their personal fields unreadable.
    public static func eraseUser(_ user: String) -> Endpoint<UserErasureResult> {
        .json("DELETE", PathEncoding.path("v1", "users", user))
    }

    /// `GET /v1/audit`: a page of the audit log. An `after` beyond the log's last entry (the
    /// server's database was restored from an earlier backup) is refused with
    /// `.beyondLogHead(position:head:requestId:)`, `position` being that `after`.
    public static func audit(_ query: AuditQuery = AuditQuery()) -> Endpoint<AuditPage> {
        var endpoint = Endpoint<AuditPage>.json("GET", PathEncoding.query("/v1/audit", query.items))
        // The server reads a missing `after` as 0.
        endpoint.logPosition = query.after ?? 0
        return endpoint
    }

    /// `GET /v1/audit/verify`: check the hash chain.
    public static func verifyAudit() -> Endpoint<AuditVerification> { .json("GET", "/v1/audit/verify") }

    /// `GET /v1/keys`: the keys, without secrets.
    public static func keys() -> Endpoint<APIKeyList> { .json("GET", "/v1/keys") }

    /// `POST /v1/keys`: issue a key; the secret is in the answer, once.
    public static func createKey(_ key: NewAPIKey) -> Endpoint<IssuedAPIKey> {
        .json("POST", "/v1/keys", body: jsonBody(key))
    }

    /// `GET /v1/keys/{id}`: one active key, without its secret (404 once revoked).
    public static func key(id: String) -> Endpoint<APIKey> { .json("GET", PathEncoding.path("v1", "keys", id)) }

    /// `DELETE /v1/keys/{id}` (204).
    public static func deleteKey(id: String) -> Endpoint<Void> { .empty("DELETE", PathEncoding.path("v1", "keys", id)) }

    /// `POST /v1/users/{user}/consent-sessions` (201): a one-time link to the consent pages for
    /// `user`; its token is in the answer, once.
    public static func createConsentSession(user: String) -> Endpoint<ConsentSessionLink> {
        .json("POST", PathEncoding.path("v1", "users", user, "consent-sessions"), body: jsonBody(NewConsentSession()))
    }

    /// `GET /v1/consent-sessions/{id}`: whose the session is, whether its link was opened, and
    /// whether it still acts; never its token.
    public static func consentSession(id: String) -> Endpoint<ConsentSession> {
        .json("GET", PathEncoding.path("v1", "consent-sessions", id))
    }

    /// `DELETE /v1/consent-sessions/{id}` (204): ends the session at once.
    public static func deleteConsentSession(id: String) -> Endpoint<Void> {
        .empty("DELETE", PathEncoding.path("v1", "consent-sessions", id))
    }

    /// `GET /healthz`: liveness.
    public static func health() -> Endpoint<Health> { .json("GET", "/healthz") }

    /// `GET /readyz`: readiness (503 while not ready).
    public static func ready() -> Endpoint<Health> { .json("GET", "/readyz") }

    /// `GET /metrics`: Prometheus text.
    public static func metrics() -> Endpoint<String> { .text("/metrics", accept: "text/plain") }

    /// `GET /openapi.yaml`: the API description.
    public static func openAPIDocument() -> Endpoint<String> { .text("/openapi.yaml", accept: "application/yaml") }
}

extension Endpoints {
    /// `GET /v1/users/{user}/export`: everything kept about the user, decoded.
    public static func export(user: String) -> Endpoint<UserExport> {
        .json("GET", PathEncoding.path("v1", "users", user, "export"))
    }

    /// `GET /v1/users/{user}/export`: the document's bytes exactly as the server sent them (to
    /// keep or hand over as a file).
    public static func exportDocument(user: String) -> Endpoint<[UInt8]> {
        Endpoint(method: "GET", path: PathEncoding.path("v1", "users", user, "export")) { raw throws(WireDecodingError) in
            raw.body
        }
    }
}
