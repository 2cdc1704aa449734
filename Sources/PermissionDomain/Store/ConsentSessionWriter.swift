/// The consent sessions' changes (SPEC §10), part of every `PermissionWriter`.
public protocol ConsentSessionWriter: ConsentSessionReader {
    /// Upserts by id: the exchange sets the secret and CSRF hashes and `exchangedAt`, ending
    /// sets `endedAt`, "Stay Signed In" moves `expiresAt` later; the user, the token hash and the
    /// time of creation never change.
    func save(_ session: ConsentSession) throws
}
