/// The changes of the permission model, inside `PermissionStore.write`. Each `save` is an
/// upsert by the value's identity; reads through the writer see the body's own changes.
public protocol PermissionWriter: PermissionReader, APIKeyWriter, ConsentSessionWriter {
    /// Upserts by (user, app, service). The service sets `version` (old + 1) and `updatedAt`.
    func save(_ authorization: StoredAuthorization) throws
    /// Upserts by id.
    func save(_ app: App) throws
    /// Upserts a custom service by id.
    func save(_ service: ServiceDefinition) throws
    /// Upserts by id.
    func save(_ policy: Policy) throws
    /// Deletes a policy; returns whether it existed.
    @discardableResult
    func deletePolicy(id: PolicyID) throws -> Bool
    /// Upserts by user.
    func save(_ settings: UserSettings) throws
    /// Upserts by id.
    func save(_ prompt: Prompt) throws
    /// Appends an entry, assigning `seq = lastAuditSeq() + 1` (gap-free; the entry's own `seq`
    /// is ignored), and returns that seq.
    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64
}
