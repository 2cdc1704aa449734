import ArgumentParser

/// `permission-server audit ...`: work on the audit log of the database (a file or a URI).
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Work on the audit log of the database (a SQLite file or a PostgreSQL URI).",
        subcommands: [AuditVerifyCommand.self, AuditRotateKeyCommand.self]
    )
}
