package import AuditKeys

extension AuditKeyring {
    /// One audit server key for the whole test run, so a store reopened by a test opens with
    /// the key its users' keys were wrapped with.
    package static let forTests = AuditKeyring.random()
}
