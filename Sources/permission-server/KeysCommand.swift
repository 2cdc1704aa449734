import ArgumentParser
import Foundation
import Logging
import PermissionAPI
import PermissionDomain
import SQLiteStore

/// `permission-server keys create|list|revoke`: API keys in the database (a SQLite file or a
/// PostgreSQL URI; SPEC §6), e.g.
/// the first admin key before the server ever ran. Changes are audited with actor `system`.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke API keys in the database.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    /// Opens the store and a service over it, with the settings' logging.
    /// On a PostgreSQL URI the database is migrated first, as on a SQLite file.
    /// - Parameter creating: whether a SQLite file that does not exist is made (`create`: the
    ///   first admin key before the server ever ran); else it is refused with exit 66, as a
    ///   mistyped `--database` would otherwise list the keys of a new, empty database.
    static func open(
        _ options: SettingOptions<SettingsScopes.Store>, label: String, creating: Bool = false
    ) throws -> (any PermissionStore, PermissionService) {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: label)
        if case .sqlite(let path) = configuration.database, !creating, !FileManager.default.fileExists(atPath: path) {
            logger.critical("no database at --database", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.noInput)
        }
        let store = try StoreOpening.open(configuration.database, keys: configuration.auditKeys, logger: logger)
        if case .sqlite(let path) = configuration.database, let sqlite = store as? SQLitePermissionStore,
            sqlite.appliedMigrations.count == SQLitePermissionStore.knownMigrations.count
        {
            // Right before a server's first start, or in the wrong directory: `--database` is
            // relative, and a server running elsewhere would never know the key made here.
            logger.warning(
                "no database was at --database, so a new one was made: a server running on another file will not know this key (give --database the file it serves)",
                metadata: ["database": "\(path)", "directory": "\(Self.workingDirectory)"])
        }
        return (store, PermissionService(store: store, clock: SystemClock()))
    }

    /// The process's working directory (getcwd(3)), which a relative `--database` is in.
    static var workingDirectory: String {
        guard let path = getcwd(nil, 0) else { return "." }
        defer { free(path) }
        return String(cString: path)
    }

    /// Maps a domain refusal to an exit status, with its reason on stderr: 1 for a key that is
    /// not there or may not go (the last active admin key), as `permctl` exits on the API's 404
    /// and 409; 64 for what the command line said wrong (a role, a missing app); 69 when the
    /// database could not take the change now (another process held the SQLite file's write
    /// lock past the busy timeout, a full disk, a lost PostgreSQL connection): worth retrying,
    /// once the state is read again when the commit's outcome is unknown; 1 for anything else.
    static func refuse(_ error: PermissionError) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        switch error {
        case .invalidArgument, .invalidCombination: return ExitCode(ExitCodes.usage)
        case .unavailable: return ExitCode(ExitCodes.unavailable)
        default: return .failure
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a key; prints its id and secret (the secret is shown only now).")

        @Option(help: "admin, consent, app or auditor.") var role: String
        @Option(help: "The app an app key is bound to.") var app: String?
        @Option(help: "A label for operators.") var name: String
        @Flag(help: "Print {\"id\":...,\"secret\":...} instead of a sentence.") var json = false
        @OptionGroup var options: SettingOptions<SettingsScopes.Store>

        func run() throws {
            let (_, service) = try KeysCommand.open(options, label: "permission-server.keys", creating: true)
            let (id, secret) = KeyBootstrap.generate()
            do {
                guard let role = Role(rawValue: role) else {
                    throw PermissionError.invalidArgument(field: "role", why: "must be admin, consent, app or auditor")
                }
                // `user` is a consent session's role: APIKey refuses it, and says why.
                let key = try service.createKey(
                    id: id, role: role, app: app.map { try AppID($0) }, name: name,
                    secretHash: KeyBootstrap.hash(secret), actor: .system, requestId: nil)
                if json {
                    print("{\"id\":\"\(key.id.rawValue)\",\"role\":\"\(role.rawValue)\",\"secret\":\"\(secret)\"}")
                } else {
                    print("created \(role.rawValue) key \(key.id.rawValue); secret (shown once): \(secret)")
                }
            } catch let error as PermissionError {
                throw KeysCommand.refuse(error)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never secrets), revoked ones marked.")

        @OptionGroup var options: SettingOptions<SettingsScopes.Store>

        func run() throws {
            let (_, service) = try KeysCommand.open(options, label: "permission-server.keys")
            for key in try service.keys() {
                let app = key.app.map { " app=\($0.rawValue)" } ?? ""
                let state = key.isActive ? "active" : "revoked"
                print("\(key.id.rawValue) \(key.role.rawValue)\(app) \(state) name=\(key.name)")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key (a running server refuses it within about 100 ms; 5 s at most).")

        @Argument(help: "The key id.") var id: String
        @OptionGroup var options: SettingOptions<SettingsScopes.Store>

        func run() throws {
            let (_, service) = try KeysCommand.open(options, label: "permission-server.keys")
            do {
                let key = try service.revokeKey(id: KeyID(id), actor: .system, requestId: nil)
                print("revoked \(key.role.rawValue) key \(key.id.rawValue)")
            } catch let error as PermissionError {
                throw KeysCommand.refuse(error)
            }
        }
    }
}
