import Foundation
import PermissionDomain

/// A PermissionStore in memory, to drive PermissionService in the pure test tier: writes are
/// serialized and atomic (the body works on a copy that replaces the state only when it
/// returns). The SQLite implementation is tested against the same flows in SQLiteStoreTests.
final class MemoryStore: PermissionStore, @unchecked Sendable {
    struct State {
        var authorizations: [AuthorizationKey: StoredAuthorization] = [:]
        var apps: [AppID: App] = [:]
        var services: [ServiceID: ServiceDefinition] = [:]
        var policies: [PolicyID: Policy] = [:]
        var settings: [UserID: UserSettings] = [:]
        var prompts: [PromptID: Prompt] = [:]
        var audit: [AuditEntry] = []
    }

    private let lock = NSLock()
    private var state = State()
    private(set) var writes = 0

    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        let snapshot = lock.withLock { state }
        return try body(MemoryAccess(snapshot))
    }

    func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T {
        try lock.withLock {
            let access = MemoryAccess(state)
            let result = try body(access)
            state = access.state
            writes += 1
            return result
        }
    }
}

/// Reads and writes over one copy of the state.
final class MemoryAccess: PermissionWriter {
    var state: MemoryStore.State

    init(_ state: MemoryStore.State) { self.state = state }

    private func page<T, K: Comparable>(_ items: some Sequence<T>, key: (T) -> K, after: K?, limit: Int) -> [T] {
        Array(items.filter { after == nil || key($0) > after! }.sorted { key($0) < key($1) }.prefix(limit))
    }

    func authorization(user: UserID, app: AppID, service: ServiceID) -> StoredAuthorization? {
        state.authorizations[AuthorizationKey(user: user, app: app, service: service)]
    }

    func authorizations(matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int) -> [StoredAuthorization] {
        page(state.authorizations.values.filter(filter.matches), key: \.key, after: after, limit: limit)
    }

    func dueOnceGrants(before date: Date, limit: Int) -> [StoredAuthorization] {
        Array(
            state.authorizations.values.filter { $0.once && ($0.expiresAt ?? .distantFuture) <= date }
                .sorted { ($0.expiresAt!, $0.key) < ($1.expiresAt!, $1.key) }.prefix(limit))
    }

    func app(_ id: AppID) -> App? { state.apps[id] }
    func apps(after: AppID?, limit: Int) -> [App] { page(state.apps.values, key: \.id, after: after, limit: limit) }
    func service(_ id: ServiceID) -> ServiceDefinition? { state.services[id] }
    func services() -> [ServiceDefinition] { state.services.values.sorted { $0.id < $1.id } }
    func policy(id: PolicyID) -> Policy? { state.policies[id] }
    func policies(after: PolicyID?, limit: Int) -> [Policy] { page(state.policies.values, key: \.id, after: after, limit: limit) }
    func policies(service: ServiceID, app: AppID, user: UserID) -> [Policy] {
        state.policies.values.filter { $0.matches(user: user, app: app, service: service) }
    }
    func userSettings(_ user: UserID) -> UserSettings? { state.settings[user] }
    func prompt(id: PromptID) -> Prompt? { state.prompts[id] }
    func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) -> [Prompt] {
        page(state.prompts.values.filter(filter.matches), key: \.id, after: after, limit: limit)
    }
    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) -> Prompt? {
        state.prompts.values.first { $0.state == .pending && $0.user == user && $0.app == app && $0.service == service }
    }
    func duePrompts(before date: Date, limit: Int) -> [Prompt] {
        Array(
            state.prompts.values.filter { $0.state == .pending && $0.expiresAt <= date }
                .sorted { ($0.expiresAt, $0.id) < ($1.expiresAt, $1.id) }.prefix(limit))
    }

    func audit(query: AuditQuery) -> [AuditEntry] {
        Array(
            state.audit.filter { entry in
                entry.seq > query.after && (query.user == nil || entry.user == query.user)
                    && (query.app == nil || entry.app == query.app) && (query.service == nil || entry.service == query.service)
                    && (query.action == nil || entry.action == query.action)
                    && (query.since == nil || entry.at >= query.since!) && (query.until == nil || entry.at < query.until!)
            }.prefix(query.limit))
    }

    func lastAuditSeq() -> Int64 { state.audit.last?.seq ?? 0 }

    func save(_ authorization: StoredAuthorization) { state.authorizations[authorization.key] = authorization }
    func save(_ app: App) { state.apps[app.id] = app }
    func save(_ service: ServiceDefinition) { state.services[service.id] = service }
    func save(_ policy: Policy) { state.policies[policy.id] = policy }
    func deletePolicy(id: PolicyID) -> Bool { state.policies.removeValue(forKey: id) != nil }
    func save(_ settings: UserSettings) { state.settings[settings.user] = settings }
    func save(_ prompt: Prompt) { state.prompts[prompt.id] = prompt }
    func append(_ entry: AuditEntry) -> Int64 {
        var entry = entry
        entry.seq = lastAuditSeq() + 1
        state.audit.append(entry)
        return entry.seq
    }
}
