import AuditKeys
import Foundation
internal import Ownership
import PermissionDomain

/// The reads of one ``PostgresPermissionStore/read(_:)`` body on a replica with a
/// ``PostgresReadModel``: the hot path's questions (a record and its user's settings, a
/// service's definition, whether it has policies, the last visible seq) are answered from
/// memory while it is fresh; the first question that needs the database checks out a
/// connection and begins the body's `REPEATABLE READ` snapshot, which the rest share. So a
/// status read served from memory costs no round trip, and no connection.
///
/// As with SQLite's read cache, what comes from memory is at least as new as every write
/// acknowledged before the body began; the cache's generation is taken before any snapshot.
final class PostgresReadSession: PermissionReader {
    private let pool: PostgresConnectionPool
    private let model: PostgresReadModel
    /// Taken before the snapshot (``ReadCache``).
    private let generation: UInt64
    /// Whether memory may be trusted, decided once when the body begins.
    private let fresh: Bool
    /// The catalogue when memory may be trusted, else nil.
    private let catalogue: PostgresCatalogue?
    /// Checked out and inside the snapshot's transaction from the first database question.
    private var connection: PostgresConnection?

    /// The audit log's per-user keys, for reads of its entries.
    private let keyring: AuditKeyring?

    init(pool: PostgresConnectionPool, model: PostgresReadModel, keyring: AuditKeyring?) {
        self.pool = pool
        self.model = model
        self.keyring = keyring
        generation = model.cache.generation
        (fresh, catalogue) = model.trusted
    }

    /// The session on the body's snapshot, begun on first use.
    /// - Throws: ``ReadMustWait`` on an event loop (a queue that forbids waiting), before any
    ///   checkout: memory did not hold what a read sent there expected (see ``ReadMustWait``).
    private func database() throws -> PostgresSession {
        if let connection { return PostgresSession(connection: connection, keyring: keyring) }
        if QueueOwner.forbidsWaitingHere { throw ReadMustWait() }
        let connection = try pool.checkout()
        do {
            try connection.execute(PostgresPermissionStore.beginRead)
        } catch {
            pool.checkin(connection)
            throw error
        }
        self.connection = connection
        return PostgresSession(connection: connection, keyring: keyring)
    }

    /// Ends the snapshot, if one began, and returns its connection. Called once, at the end.
    func finish() {
        guard let connection else { return }
        self.connection = nil
        connection.rollbackIgnoringErrors()  // read only: nothing to keep
        pool.checkin(connection)
    }

    // MARK: From memory while fresh

    func authorizationAndSettings(
        user: UserID, app: AppID, service: ServiceID, withSettings: Bool
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)
    {
        let key = AuthorizationKey(user: user, app: app, service: service)
        if fresh, let cached = model.cache.lookup(key, withSettings: withSettings, readAt: generation) {
            return cached
        }
        let found = try database().authorizationAndSettings(user: user, app: app, service: service, withSettings: withSettings)
        model.cache.insert(key, stored: found.stored, settings: withSettings ? .some(found.settings) : nil, readAt: generation)
        return found
    }

    func service(_ id: ServiceID) throws -> ServiceDefinition? {
        if let catalogue { return catalogue.services[id] }
        return try database().service(id)
    }

    func policies(service: ServiceID, app: AppID, user: UserID) throws -> [Policy] {
        if let catalogue, !catalogue.policyServices.contains(service) { return [] }
        return try database().policies(service: service, app: app, user: user)
    }

    /// The visible revision: entries after it are not shown yet.
    func lastAuditSeq() throws -> Int64 { model.visibleRevision }

    func audit(query: AuditQuery) throws -> [AuditEntry] {
        let visible = model.visibleRevision  // before the query: it only grows
        return try database().audit(query: query, through: visible)
    }

    // MARK: From the database

    func auditRecords(user: UserID, after: Int64, limit: Int) throws -> [AuditRecord] {
        try database().auditRecords(user: user, after: after, limit: limit)
    }

    func auditHead() throws -> AuditRecord? { try database().auditHead() }

    func auditHash(seq: Int64) throws -> String? { try database().auditHash(seq: seq) }

    func exportRowCount(user: UserID, upTo limit: Int) throws -> Int {
        try database().exportRowCount(user: user, upTo: limit)
    }

    func authorization(user: UserID, app: AppID, service: ServiceID) throws -> StoredAuthorization? {
        try database().authorization(user: user, app: app, service: service)
    }

    func authorizations(
        matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int
    ) throws
        -> [StoredAuthorization]
    {
        try database().authorizations(matching: filter, after: after, limit: limit)
    }

    func dueGrants(before date: Date, limit: Int) throws -> [StoredAuthorization] {
        try database().dueGrants(before: date, limit: limit)
    }

    /// From memory while fresh (the hot path asks for the app of every authorized record, for
    /// `purposeChanged`); an `app.put` entry removes it (``ReadModelChanges``).
    func app(_ id: AppID) throws -> App? {
        if fresh, let cached = model.cache.lookupApp(id, readAt: generation) { return cached }
        let found = try database().app(id)
        model.cache.insertApp(id, app: found, readAt: generation)
        return found
    }
    func apps(after: AppID?, limit: Int) throws -> [App] { try database().apps(after: after, limit: limit) }
    func services() throws -> [ServiceDefinition] { try database().services() }
    func policy(id: PolicyID) throws -> Policy? { try database().policy(id: id) }
    func policies(after: PolicyID?, limit: Int) throws -> [Policy] { try database().policies(after: after, limit: limit) }
    func userSettings(_ user: UserID) throws -> UserSettings? { try database().userSettings(user) }
    func prompt(id: PromptID) throws -> Prompt? { try database().prompt(id: id) }

    func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) throws -> [Prompt] {
        try database().prompts(matching: filter, after: after, limit: limit)
    }

    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) throws -> Prompt? {
        try database().pendingPrompt(user: user, app: app, service: service)
    }

    func duePrompts(before date: Date, limit: Int) throws -> [Prompt] {
        try database().duePrompts(before: date, limit: limit)
    }

    func locationAlertSchedule(user: UserID, app: AppID) throws -> LocationAlertSchedule? {
        try database().locationAlertSchedule(user: user, app: app)
    }

    func dueLocationAlerts(before date: Date, limit: Int) throws -> [LocationAlertSchedule] {
        try database().dueLocationAlerts(before: date, limit: limit)
    }

    func locationAlertSchedules(app: AppID, after: UserID?, limit: Int) throws -> [LocationAlertSchedule] {
        try database().locationAlertSchedules(app: app, after: after, limit: limit)
    }

    func locationAlertSchedules(user: UserID, after: AppID?, limit: Int) throws -> [LocationAlertSchedule] {
        try database().locationAlertSchedules(user: user, after: after, limit: limit)
    }

    func apiKey(id: KeyID) throws -> APIKey? { try database().apiKey(id: id) }
    func apiKeys() throws -> [APIKey] { try database().apiKeys() }

    func consentSession(id: ConsentSessionID) throws -> ConsentSession? { try database().consentSession(id: id) }

    func consentSession(tokenHash: [UInt8]) throws -> ConsentSession? {
        try database().consentSession(tokenHash: tokenHash)
    }

    func consentSession(secretHash: [UInt8]) throws -> ConsentSession? {
        try database().consentSession(secretHash: secretHash)
    }
}
