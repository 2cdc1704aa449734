public import PermissionWire

/// The operator-side operations as typed async calls.
extension PermissionClient {
    /// The catalogue.
    public func services() async throws(PermissionClientError) -> ServiceList { try await send(Endpoints.services()).value }

    /// One service.
    public func service(_ id: String) async throws(PermissionClientError) -> ServiceDefinition {
        try await send(Endpoints.service(id)).value
    }

    /// Defines or replaces a custom service.
    public func putService(
        _ id: String, _ registration: ServiceRegistration
    ) async throws(PermissionClientError)
        -> ServiceDefinition
    {
        try await send(Endpoints.putService(id, registration)).value
    }

    /// A page of registered apps.
    public func apps(after: String? = nil, limit: Int? = nil) async throws(PermissionClientError) -> AppList {
        try await send(Endpoints.apps(after: after, limit: limit)).value
    }

    /// One registered app.
    public func app(_ id: String) async throws(PermissionClientError) -> App { try await send(Endpoints.app(id)).value }

    /// Registers an app, its purpose strings and their translations (language tag → Info.plist
    /// key → text), replacing both sets. With `reconsent`, every grant given under a purpose
    /// string this changes goes back to `notDetermined` (`purposeChanged`); the answer's
    /// `reconsented` says how many.
    public func registerApp(
        _ id: String, name: String, purposeStrings: [String: String],
        localizedPurposeStrings: [String: [String: String]]? = nil, reconsent: Bool = false
    ) async throws(PermissionClientError) -> App {
        try await send(
            Endpoints.registerApp(
                id,
                AppRegistration(
                    name: name, purposeStrings: purposeStrings, localizedPurposeStrings: localizedPurposeStrings,
                    reconsent: reconsent ? true : nil))
        ).value
    }

    /// A page of the app's grants given under a purpose string it has since changed; continue
    /// with `nextCursor` (a page may be short while it is set).
    public func purposeChanged(
        app: String, after: String? = nil, limit: Int? = nil
    ) async throws(PermissionClientError)
        -> AuthorizationList
    {
        try await send(Endpoints.purposeChanged(app: app, after: after, limit: limit)).value
    }

    /// A page of policies.
    public func policies(after: String? = nil, limit: Int? = nil) async throws(PermissionClientError) -> PolicyList {
        try await send(Endpoints.policies(after: after, limit: limit)).value
    }

    /// One policy.
    public func policy(id: String) async throws(PermissionClientError) -> Policy {
        try await send(Endpoints.policy(id: id)).value
    }

    /// Creates or replaces a policy.
    public func putPolicy(id: String, _ definition: PolicyDefinition) async throws(PermissionClientError) -> Policy {
        try await send(Endpoints.putPolicy(id: id, definition)).value
    }

    /// Deletes a policy.
    public func deletePolicy(id: String) async throws(PermissionClientError) {
        _ = try await send(Endpoints.deletePolicy(id: id))
    }

    /// Resets matching authorizations to notDetermined, like `tccutil reset SERVICE [BUNDLE_ID]`.
    /// - Returns: how many records changed or had a prompt cancelled.
    public func reset(service: String, app: String? = nil, user: String? = nil) async throws(PermissionClientError) -> Int64 {
        try await send(Endpoints.reset(service: service, app: app, user: user)).value.count
    }

    /// Erases a user (GDPR Art. 17): their authorizations, prompts, settings, the policies that
    /// name them and their consent sessions are deleted, and their audit key destroyed.
    /// - Throws: `PermissionClientError` with status 404 when nothing is stored about the user.
    public func eraseUser(_ user: String) async throws(PermissionClientError) -> UserErasureResult {
        try await send(Endpoints.eraseUser(user)).value
    }

    /// A page of the audit log.
    /// - Throws: `.beyondLogHead` for an `after` beyond the log's last entry (see
    ///   `Endpoints.audit(_:)`).
    public func audit(_ query: AuditQuery = AuditQuery()) async throws(PermissionClientError) -> AuditPage {
        try await send(Endpoints.audit(query)).value
    }

    /// Checks the audit hash chain.
    public func verifyAudit() async throws(PermissionClientError) -> AuditVerification {
        try await send(Endpoints.verifyAudit()).value
    }

    /// The API keys, without secrets.
    public func keys() async throws(PermissionClientError) -> APIKeyList { try await send(Endpoints.keys()).value }

    /// Issues a key; the answer carries its secret, once.
    public func createKey(_ key: NewAPIKey) async throws(PermissionClientError) -> IssuedAPIKey {
        try await send(Endpoints.createKey(key)).value
    }

    /// One active key, without its secret.
    public func key(id: String) async throws(PermissionClientError) -> APIKey { try await send(Endpoints.key(id: id)).value }

    /// Revokes a key.
    public func deleteKey(id: String) async throws(PermissionClientError) { _ = try await send(Endpoints.deleteKey(id: id)) }

    /// A one-time link to the consent pages for `user` (SPEC §10), to give to that user.
    public func createConsentSession(user: String) async throws(PermissionClientError) -> ConsentSessionLink {
        try await send(Endpoints.createConsentSession(user: user)).value
    }

    /// A consent session's state: unopened, open, ended or expired.
    public func consentSession(id: String) async throws(PermissionClientError) -> ConsentSession {
        try await send(Endpoints.consentSession(id: id)).value
    }

    /// Ends a consent session at once (its cookie and its link stop working).
    public func deleteConsentSession(id: String) async throws(PermissionClientError) {
        _ = try await send(Endpoints.deleteConsentSession(id: id))
    }

    /// Liveness (`/healthz`).
    public func health() async throws(PermissionClientError) -> Health { try await send(Endpoints.health()).value }

    /// Readiness (`/readyz`).
    public func ready() async throws(PermissionClientError) -> Health { try await send(Endpoints.ready()).value }

    /// Prometheus metrics text.
    public func metrics() async throws(PermissionClientError) -> String { try await send(Endpoints.metrics()).value }

    /// The server's OpenAPI document.
    public func openAPIDocument() async throws(PermissionClientError) -> String {
        try await send(Endpoints.openAPIDocument()).value
    }
}

extension PermissionClient {
    /// Everything the service keeps about `user` (GDPR Art. 15 and 20): consent records, prompts,
    /// settings and the audit entries with the chain head. An unknown user's export has no records.
    public func export(user: String) async throws(PermissionClientError) -> UserExport {
        try await send(Endpoints.export(user: user)).value
    }

    /// The export of `user` as the JSON bytes the server sent, for keeping as a file or checking
    /// with `scripts/verify-export.py`.
    public func exportDocument(user: String) async throws(PermissionClientError) -> [UInt8] {
        try await send(Endpoints.exportDocument(user: user)).value
    }
}
