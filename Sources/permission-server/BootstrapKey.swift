import ArgumentParser
import Foundation
import Logging
import PermissionAPI
import PermissionDomain
import PostgresStore

/// `PERMISSION_BOOTSTRAP_ADMIN_KEY` at start (environment or config file; a secret is never a flag and
/// never logged): the first admin key, created while the database has no active admin key. Without it, and with no active
/// admin key in the database, the server says how to get one instead of answering 401 in silence.
enum BootstrapKey {
    /// The bootstrap secret (environment, else config file), checked before anything is
    /// opened, or nil.
    /// - Throws: `ExitCode` 64 when it is set but not acceptable; the reason is logged as a
    ///   sentence naming the variable, never with the secret.
    static func secret(_ configuration: ServerConfiguration, logger: Logger) throws -> String? {
        guard let secret = configuration.bootstrapAdminKey else { return nil }
        guard KeySecret.isAcceptable(secret) else {
            logger.critical(
                """
                refusing to start: \(Settings.bootstrapAdminKey.environment) must be pk_<16 hex digits>_<random> \
                or 32 to 256 characters of A-Z a-z 0-9 - . _ ~ + / = (for example: openssl rand -hex 32)
                """)
            throw ExitCode(ExitCodes.usage)
        }
        return secret
    }

    /// Creates the bootstrap key for `secret` unless it exists; then, when the database has no
    /// active admin key at all, logs one warning that says how to create one.
    /// - Parameters:
    ///   - secret: from ``secret(environment:logger:)``; nil when none was set.
    ///   - database: named in the warning's command: a path as given, a PostgreSQL URI without
    ///     its password (which the command takes from a file, never from its command line).
    /// - Throws: `ExitCode` 64 when the secret's key id belongs to another key.
    static func apply(_ secret: String?, service: PermissionService, database: DatabaseLocation, logger: Logger) throws {
        if let secret {
            do {
                try KeyBootstrap.ensureAdminKey(secret: secret, service: service, logger: logger)
            } catch let error as PermissionError {
                logger.critical("refusing to start: \(error)")
                throw ExitCode(ExitCodes.usage)
            }
        }
        guard try !service.keys().contains(where: { $0.role == .admin && $0.isActive }) else { return }
        logger.warning(
            """
            no active admin key: every /v1 call answers 401 until one exists. Create one with \
            `permission-server keys create --role admin --name admin \(databaseFlags(database))` \
            (it prints the secret once; the server need not stop), or start with \
            \(Settings.bootstrapAdminKey.environment) set to a secret of your own
            """)
    }

    /// The `--database` of the warning's command. A URI is shown without any password and with
    /// `--database-password-file` after it: a password on a command line is visible in `ps` and
    /// kept in shell history.
    static func databaseFlags(_ database: DatabaseLocation) -> String {
        switch database {
        case .sqlite(let path): "--database \(shellQuoted(path))"
        case .postgres(let connectionString):
            "--database \(shellQuoted(ConnectionString.withoutPasswords(connectionString))) "
                + "--\(Settings.databasePasswordFile.flag) FILE"
        }
    }

    /// `word` as one word of a POSIX shell command: as it is when it holds only characters no
    /// shell treats specially, else in single quotes (each `'` in it written `'\''`).
    static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "/._-+:=,@%".utf8.contains(byte)
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
