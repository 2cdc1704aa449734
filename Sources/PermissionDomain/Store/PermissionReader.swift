public import Foundation

/// The queries of the permission model. Every listing is keyset-paged: rows strictly after
/// the `after` cursor in the stated order, at most `limit` of them (`limit` >= 1).
public protocol PermissionReader: APIKeyReader, ConsentSessionReader {
    /// The stored record of (user, app, service), or nil when never written.
    func authorization(user: UserID, app: AppID, service: ServiceID) throws -> StoredAuthorization?

    /// The hot path's read, in one lookup: the stored record of (user, app, service) (nil when
    /// never written) and, when `withSettings`, the user's settings (nil when never changed or
    /// not asked for).
    func authorizationAndSettings(
        user: UserID, app: AppID, service: ServiceID, withSettings: Bool
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)

    /// Stored records matching `filter` (on the STORED status), ordered by (user, app, service).
    /// Must be efficient for: one user (all apps, services); one app and service (all users),
    /// optionally with a status; one app; one service; everything (reset all).
    func authorizations(
        matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int
    ) throws
        -> [StoredAuthorization]

    /// Grants with an end (Allow Once and expiring grants, SPEC §11) whose `expiresAt <= date`,
    /// ordered by (expiresAt, user, app, service).
    func dueGrants(before date: Date, limit: Int) throws -> [StoredAuthorization]

    func app(_ id: AppID) throws -> App?
    /// Apps ordered by id.
    func apps(after: AppID?, limit: Int) throws -> [App]

    /// A custom service; built-in services live in `Catalogue` and are never stored.
    func service(_ id: ServiceID) throws -> ServiceDefinition?
    /// Every custom service, ordered by id.
    func services() throws -> [ServiceDefinition]

    func policy(id: PolicyID) throws -> Policy?
    /// Policies ordered by id.
    func policies(after: PolicyID?, limit: Int) throws -> [Policy]
    /// Every policy that applies to (user, app, service): `service` equal, `app` null or
    /// equal, `user` null or equal. The hot path; any order.
    func policies(service: ServiceID, app: AppID, user: UserID) throws -> [Policy]

    /// A user's settings, or nil when never changed (Location Services on).
    func userSettings(_ user: UserID) throws -> UserSettings?

    func prompt(id: PromptID) throws -> Prompt?
    /// Prompts matching `filter` (on the STORED state), ordered by id (creation order).
    func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) throws -> [Prompt]
    /// The stored-pending prompt of (user, app, service), if any (at most one exists).
    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) throws -> Prompt?
    /// Stored-pending prompts whose `expiresAt <= date`, ordered by (expiresAt, id).
    func duePrompts(before date: Date, limit: Int) throws -> [Prompt]

    /// The location alert schedule of (user, app), or nil (SPEC §11).
    func locationAlertSchedule(user: UserID, app: AppID) throws -> LocationAlertSchedule?
    /// Schedules whose `dueAt <= date`, ordered by (dueAt, user, app).
    func dueLocationAlerts(before date: Date, limit: Int) throws -> [LocationAlertSchedule]
    /// The schedules of one app, ordered by user.
    func locationAlertSchedules(app: AppID, after: UserID?, limit: Int) throws -> [LocationAlertSchedule]
    /// The schedules of one user, ordered by app.
    func locationAlertSchedules(user: UserID, after: AppID?, limit: Int) throws -> [LocationAlertSchedule]

    /// Audit entries matching `query`, ordered by seq.
    func audit(query: AuditQuery) throws -> [AuditEntry]
    /// The seq of the last audit entry, 0 when the log is empty.
    func lastAuditSeq() throws -> Int64

    /// The stored records (every hashed column as stored, ``AuditChain``) of the audit entries
    /// about `user` (its `user` column), those with `seq > after`, in seq order, at most
    /// `limit`: what an export hands over to be verified against the chain. Every record of the
    /// read's snapshot, whatever a read cache shows yet.
    func auditRecords(user: UserID, after: Int64, limit: Int) throws -> [AuditRecord]
    /// The stored record of the last audit entry in the read's snapshot (the chain head),
    /// whatever a read cache shows yet; nil for an empty log.
    func auditHead() throws -> AuditRecord?
    /// The stored hash of the audit entry `seq` in the read's snapshot, whatever a read cache
    /// shows yet; nil when the snapshot has no such entry. What a reader's position is checked
    /// against (a feed resumed with the hash of the last entry it read).
    func auditHash(seq: Int64) throws -> String?

    /// The rows an export of `user` holds: their authorization records, prompts and location
    /// alert schedules, and the stored audit records ``auditRecords(user:after:limit:)`` pages
    /// through (every one of the snapshot). Each of the four is counted on its index up to
    /// `limit` + 1 rows and no further, so the count costs at most that many index entries
    /// each, and exceeds `limit` exactly when the rows do.
    func exportRowCount(user: UserID, upTo limit: Int) throws -> Int
}
