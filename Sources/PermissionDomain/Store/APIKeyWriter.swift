/// The API keys' changes (SPEC §6), part of every `PermissionWriter`.
public protocol APIKeyWriter: APIKeyReader {
    /// Upserts by id (a revocation saves the key with `revokedAt` set; the hash never changes).
    func save(_ key: APIKey) throws
}
