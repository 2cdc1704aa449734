import ArgumentParser

/// `permission-server audit ...`: work on the audit log of the database file.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Work on the audit log of the database file.",
        subcommands: [AuditVerifyCommand.self, AuditRotateKeyCommand.self]
    )
}
