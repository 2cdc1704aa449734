import ArgumentParser

/// `permission-server`: `serve` (the default), `migrate`, `backup`, `healthcheck`,
/// `audit verify`, `keys` and `copy`.
///
/// Every setting of ``Settings/all`` is a flag of each subcommand and an environment variable;
/// see ``SettingOptions`` (a subcommand's `--help` lists those it reads). Exit codes follow sysexits(3): 64 for a bad setting, 65 for a database
/// this program must not touch (newer than the code), 66 for a missing input file, 73 for a
/// backup target that exists or a copy target that is not empty, 1 for anything else.
struct PermissionServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permission-server",
        abstract:
            "Per-user app permissions (the iOS TCC model) over HTTP, with the state in one SQLite file, or in one PostgreSQL database that several replicas serve.",
        discussion: """
            Settings come from flags, then PERMISSION_* environment variables, then the file named \
            by --config / PERMISSION_CONFIG, then the defaults shown in each subcommand's --help. \
            Each subcommand's --help lists the settings it reads (serve: all); --help-hidden lists \
            the others too, which every subcommand accepts and checks, so that one environment or \
            config file serves them all.
            """,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, BackupCommand.self, HealthcheckCommand.self,
            SettingsTableCommand.self, AuditCommand.self, KeysCommand.self, CopyCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
