import PermissionDomain

extension AuditChain {
    /// The chain this store writes and verifies: the domain's rule over swift-crypto's SHA-256.
    static let sha256 = AuditChain(hasher: SHA256AuditHasher())
}
