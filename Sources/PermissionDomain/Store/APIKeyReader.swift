/// The API keys' queries (SPEC §6), part of every `PermissionReader`.
public protocol APIKeyReader {
    /// The key with `id`, revoked or not; nil when none. On the authentication path (cached above).
    func apiKey(id: KeyID) throws -> APIKey?
    /// Every key, revoked ones included, ordered by id.
    func apiKeys() throws -> [APIKey]
}
