package import PermissionDomain

extension AuditChain {
    /// The chain every store writes and verifies: the domain's rule over swift-crypto's SHA-256.
    package static let sha256 = AuditChain(hasher: SHA256AuditHasher())
    /// The format before personal fields were sealed, for the migration that reseals an old log.
    package static let sha256V1 = AuditChain(hasher: SHA256AuditHasher(), format: .v1)
}
