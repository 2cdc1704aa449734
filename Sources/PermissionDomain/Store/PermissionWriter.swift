public import Foundation

/// The changes of the permission model, inside `PermissionStore.write`. Each `save` is an
/// upsert by the value's identity; reads through the writer see the body's own changes.
public protocol PermissionWriter: PermissionReader, APIKeyWriter, ConsentSessionWriter {
    /// Upserts by (user, app, service). The service sets `version` (old + 1, or
    /// ``versionFloor()`` + 1 for a record not stored) and `updatedAt`.
    func save(_ authorization: StoredAuthorization) throws
    /// What a record that is not stored counts as having had: 0 until a user is erased, then
    /// at least the highest `version` any erased record held. A record written for the first
    /// time, or again after its user's erasure, takes the next version, so that a
    /// (user, app, service)'s version never goes back (SPEC §3) although erasure keeps nothing
    /// about the user. It only grows; ``eraseUser(_:)`` raises it.
    func versionFloor() throws -> Int64
    /// Upserts by id.
    func save(_ app: App) throws
    /// Upserts a custom service by id.
    func save(_ service: ServiceDefinition) throws
    /// What holds each level of `service` (``LevelUse``); levels nothing holds are absent. Read
    /// inside the write, so that no write committed before it is missed and none after it can
    /// add to it unseen.
    func levelUse(service: ServiceID) throws -> [Level: LevelUse]
    /// Upserts by id.
    func save(_ policy: Policy) throws
    /// Deletes a policy; returns whether it existed.
    @discardableResult
    func deletePolicy(id: PolicyID) throws -> Bool
    /// Upserts by user.
    func save(_ settings: UserSettings) throws
    /// Upserts by id.
    func save(_ prompt: Prompt) throws
    /// Deletes at most `limit` prompts that ended (answered, expired or cancelled) before
    /// `date`, the earliest ended first; returns how many (retention, ``PermissionService/purgeEnded(now:limit:)``).
    func deleteEndedPrompts(before date: Date, limit: Int) throws -> Int
    /// Deletes at most `limit` consent sessions whose life ended (`expiresAt`) before `date`,
    /// the earliest first; returns how many. An ended session is gone with them.
    func deleteEndedConsentSessions(before date: Date, limit: Int) throws -> Int
    /// Upserts by (user, app).
    func save(_ schedule: LocationAlertSchedule) throws
    /// Deletes the location alert schedule of (user, app), if any.
    func deleteLocationAlertSchedule(user: UserID, app: AppID) throws
    /// Erases `user` (GDPR Art. 17): deletes their authorization records, prompts, settings,
    /// location alert schedules, the policies that name them and their consent sessions, and destroys their audit key, so
    /// the personal fields of their audit entries can no longer be read (the entries stay, and
    /// the chain, which hashes their sealed form, still verifies). Raises ``versionFloor()`` to
    /// the highest version of the records it deletes. Returns what it deleted; the caller
    /// appends the `user.erased` entry.
    func eraseUser(_ user: UserID) throws -> UserErasure
    /// Appends an entry, assigning `seq = lastAuditSeq() + 1` (gap-free; the entry's own `seq`
    /// is ignored), and returns that seq.
    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64
}
