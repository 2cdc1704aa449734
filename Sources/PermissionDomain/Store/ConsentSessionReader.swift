/// The consent sessions' queries (SPEC §10), part of every `PermissionReader`. Each is one
/// lookup by a unique key; the hashes are SHA-256 of random secrets, so finding a row by one
/// tells nothing about the secret.
public protocol ConsentSessionReader {
    /// The session with `id`, whatever its state; nil when none.
    func consentSession(id: ConsentSessionID) throws -> ConsentSession?
    /// The session whose link token hashes to `tokenHash`; nil when none.
    func consentSession(tokenHash: [UInt8]) throws -> ConsentSession?
    /// The session whose cookie secret hashes to `secretHash`; nil when none.
    func consentSession(secretHash: [UInt8]) throws -> ConsentSession?
}
