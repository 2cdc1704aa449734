/// The consent sessions' changes (SPEC §10), part of every `PermissionWriter`.
public protocol ConsentSessionWriter: ConsentSessionReader {
    /// Upserts by id: the exchange sets the secret and CSRF hashes and `exchangedAt`, ending
    /// sets `endedAt`; the user, the token hash and the times of creation and expiry never change.
    func save(_ session: ConsentSession) throws
}
