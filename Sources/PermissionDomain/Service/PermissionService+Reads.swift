import Foundation

extension PermissionService {
    /// The effective authorization (SPEC §3): any well-formed ids; a record never written is
    /// notDetermined (`default`), version 0. The hot path: one read snapshot.
    /// - Throws: `PermissionError.unknownService`.
    public func authorization(user: UserID, app: AppID, service: ServiceID) throws -> Authorization {
        let at = now
        return try store.read { reader in
            try load(reader, user: user, app: app, service: service, now: at).effective
        }
    }

    /// The authorization as it is with the user's Location Services switch on: the choice kept
    /// while the switch is off (SPEC §3), which a settings screen shows beside the switch. For a
    /// service without the switch, or a user whose switch is on, it is ``authorization(user:app:service:)``.
    /// - Throws: `PermissionError.unknownService`.
    public func authorizationWithLocationServicesOn(user: UserID, app: AppID, service: ServiceID) throws -> Authorization {
        let at = now
        return try store.read { reader in
            let definition = try resolveService(reader, service)
            let (found, _) = try reader.authorizationAndSettings(user: user, app: app, service: service, withSettings: false)
            let stored = found ?? .initial(user: user, app: app, service: service)
            let policies = try reader.policies(service: service, app: app, user: user)
            let view = Rules.effective(stored: stored, service: definition, policies: policies, settings: nil, now: at)
            return try flaggingPurpose(reader, view, stored: stored, service: definition)
        }
    }

    /// Effective authorizations of the stored records matching `filter`, ordered by
    /// (user, app, service): every authorization of a user, every user of an app for a service, ...
    /// `filter.status` is applied to the EFFECTIVE status: the store is scanned (at most
    /// `max(8 × limit, 1000)` records per call) and the page may be short; continue from
    /// `nextAfter`. Authorizations never stored (e.g. only pre-approved by a policy) are not listed.
    public func authorizations(
        matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int
    ) throws
        -> AuthorizationPage
    {
        let at = now
        let limit = max(1, limit)
        var storeFilter = filter
        storeFilter.status = nil
        let budget = filter.status == nil ? limit : max(8 * limit, 1000)
        return try store.read { reader in
            try scanAuthorizations(
                reader, matching: storeFilter, after: after, limit: limit, budget: budget, now: at,
                keepingView: { filter.status == nil || $0.status == filter.status })
        }
    }

    /// One page of effective authorizations, read from the store's records matching `filter` in
    /// (user, app, service) order after `after`: at most `limit` kept, at most `budget` records
    /// read, so the page may be short while `nextAfter` is set. The store is never asked for
    /// more rows than the page can still take, so every row read is consumed.
    /// - Parameters:
    ///   - apps: registrations already read (an app the caller holds).
    ///   - keepingRecord: decides on the stored record and its service first, before the
    ///     effective authorization is worked out (cheaper when most records are skipped).
    ///   - keepingView: decides on the effective authorization.
    func scanAuthorizations(
        _ reader: any PermissionReader, matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int,
        budget: Int, now at: Date, apps known: [AppID: App?] = [:],
        keepingRecord: (StoredAuthorization, ServiceDefinition) -> Bool = { _, _ in true },
        keepingView: (Authorization) -> Bool = { _ in true }
    ) throws -> AuthorizationPage {
        var services: [ServiceID: ServiceDefinition] = [:]
        var apps = known
        let page = try KeysetScan.page(
            after: after, limit: limit, budget: budget,
            read: { try reader.authorizations(matching: filter, after: $0, limit: $1) },
            key: \.key,
            keep: { stored -> Authorization? in
                let service = try services[stored.service] ?? resolveService(reader, stored.service)
                services[stored.service] = service
                guard keepingRecord(stored, service) else { return nil }
                let view = try effective(reader, stored: stored, service: service, now: at, apps: &apps)
                return keepingView(view) ? view : nil
            })
        return AuthorizationPage(items: page.items, nextAfter: page.nextAfter)
    }

    /// Prompts matching `filter`, ordered by id (creation order), in their effective state: a
    /// pending prompt past its deadline reads as `expired` (SPEC §5). The page may be short;
    /// continue from `nextAfter`.
    public func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) throws -> PromptPage {
        let at = now
        let limit = max(1, limit)
        var storeFilter = filter
        if filter.state == .expired { storeFilter.state = nil }
        let budget = filter.state == nil ? limit : max(8 * limit, 1000)
        return try store.read { reader in
            let page = try KeysetScan.page(
                after: after, limit: limit, budget: budget,
                read: { try reader.prompts(matching: storeFilter, after: $0, limit: $1) },
                key: \.id,
                keep: { prompt -> Prompt? in
                    let view = prompt.effective(at: at)
                    return filter.state == nil || view.state == filter.state ? view : nil
                })
            return PromptPage(items: page.items, nextAfter: page.nextAfter)
        }
    }

    /// One prompt in its effective state.
    /// - Throws: `PermissionError.notFound`.
    public func prompt(id: PromptID) throws -> Prompt {
        let at = now
        guard let prompt = try store.read({ try $0.prompt(id: id) }) else {
            throw PermissionError.notFound(what: "prompt \(id)")
        }
        return prompt.effective(at: at)
    }

    /// The location alert schedule of (user, app) (SPEC §11), nil when none is kept.
    public func locationAlertSchedule(user: UserID, app: AppID) throws -> LocationAlertSchedule? {
        try store.read { try $0.locationAlertSchedule(user: user, app: app) }
    }

    /// The catalogue: the built-in services in SPEC §2 order, then the custom ones by id.
    public func services() throws -> [ServiceDefinition] {
        Catalogue.builtins + (try store.read { try $0.services() })
    }

    /// One service, built in or custom.
    /// - Throws: `PermissionError.unknownService`.
    public func service(_ id: ServiceID) throws -> ServiceDefinition {
        try store.read { try resolveService($0, id) }
    }

    /// - Throws: `PermissionError.notFound`.
    public func app(_ id: AppID) throws -> App {
        guard let app = try store.read({ try $0.app(id) }) else { throw PermissionError.notFound(what: "app \(id)") }
        return app
    }

    /// Apps ordered by id, after `after`.
    public func apps(after: AppID?, limit: Int) throws -> [App] {
        try store.read { try $0.apps(after: after, limit: max(1, limit)) }
    }

    /// - Throws: `PermissionError.notFound`.
    public func policy(id: PolicyID) throws -> Policy {
        guard let policy = try store.read({ try $0.policy(id: id) }) else {
            throw PermissionError.notFound(what: "policy \(id)")
        }
        return policy
    }

    /// Policies ordered by id, after `after`.
    public func policies(after: PolicyID?, limit: Int) throws -> [Policy] {
        try store.read { try $0.policies(after: after, limit: max(1, limit)) }
    }

    /// A user's settings; the defaults (Location Services on) when never changed.
    public func userSettings(_ user: UserID) throws -> UserSettings {
        try store.read { try $0.userSettings(user) } ?? UserSettings(user: user)
    }

    /// Audit entries matching `query`, in seq order (SPEC §5).
    public func audit(query: AuditQuery) throws -> [AuditEntry] {
        try store.read { try $0.audit(query: query) }
    }

    /// The seq of the last audit entry, 0 when none.
    public func lastAuditSeq() throws -> Int64 {
        try store.read { try $0.lastAuditSeq() }
    }

    /// The stored hash of the audit entry `seq`, read from the database whatever this process
    /// shows yet; nil when the log has no such entry.
    public func auditHash(seq: Int64) throws -> String? {
        try store.read { try $0.auditHash(seq: seq) }
    }
}
