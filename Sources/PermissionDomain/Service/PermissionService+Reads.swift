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
            var items: [Authorization] = []
            var cursor = after
            var scanned = 0
            var services: [ServiceID: ServiceDefinition] = [:]
            var apps: [AppID: App?] = [:]
            while items.count < limit, scanned < budget {
                // Never ask for more than the page can still take, so every row read is consumed.
                let want = min(limit - items.count, budget - scanned)
                let page = try reader.authorizations(matching: storeFilter, after: cursor, limit: want)
                for stored in page {
                    cursor = stored.key
                    scanned += 1
                    let service = try services[stored.service] ?? resolveService(reader, stored.service)
                    services[stored.service] = service
                    let view = try effective(reader, stored: stored, service: service, now: at, apps: &apps)
                    if filter.status == nil || view.status == filter.status { items.append(view) }
                }
                if page.count < want { return AuthorizationPage(items: items, nextAfter: nil) }
            }
            return AuthorizationPage(items: items, nextAfter: cursor)
        }
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
            var items: [Prompt] = []
            var cursor = after
            var scanned = 0
            while items.count < limit, scanned < budget {
                let want = min(limit - items.count, budget - scanned)
                let page = try reader.prompts(matching: storeFilter, after: cursor, limit: want)
                for prompt in page {
                    cursor = prompt.id
                    scanned += 1
                    let view = prompt.effective(at: at)
                    if filter.state == nil || view.state == filter.state { items.append(view) }
                }
                if page.count < want { return PromptPage(items: items, nextAfter: nil) }
            }
            return PromptPage(items: items, nextAfter: cursor)
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
}
