import Crypto
import PermissionDomain

/// SHA-256 (FIPS 180-4) through swift-crypto, for the domain's audit hash chain
/// (``AuditChain``), which defines everything else about it.
struct SHA256AuditHasher: AuditChainHasher {
    func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
