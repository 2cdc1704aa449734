import PermissionDomain

extension AuditEntry {
    /// The entry without what differs between two stores given the same entries: its chain
    /// links and its pseudonym (each seal has a random nonce, each store its own user keys).
    var withoutChainLinks: AuditEntry {
        var entry = self
        (entry.hash, entry.prevHash, entry.pseudonym) = (nil, nil, nil)
        return entry
    }
}
