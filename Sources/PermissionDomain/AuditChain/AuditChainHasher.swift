/// The digest the audit hash chain (``AuditChain``) is built on: SHA-256 (FIPS 180-4).
///
/// The domain defines what is hashed and how entries link; it does no cryptography itself and
/// imports nothing, so the store layer supplies the digest (SQLite's store: swift-crypto). Every
/// conformer must compute plain SHA-256, or existing chains stop verifying.
package protocol AuditChainHasher: Sendable {
    /// The 32-byte SHA-256 digest of `bytes`.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
}
