import ArgumentParser
import Foundation
import Logging
import PermissionAPI
import PermissionDomain

/// `PERMISSION_BOOTSTRAP_ADMIN_KEY` at start (environment only; a secret is never a flag and
/// never logged): the first admin key, created unless it exists.
enum BootstrapKey {
    /// - Throws: `ExitCode` 64 when the secret is not acceptable.
    static func apply(_ service: PermissionService, environment: [String: String], logger: Logger) throws {
        guard let secret = environment[Settings.bootstrapAdminKey.environment], !secret.isEmpty else { return }
        do {
            try KeyBootstrap.ensureAdminKey(secret: secret, service: service, logger: logger)
        } catch let error as PermissionError {
            logger.critical("refusing to start: \(error)")
            throw ExitCode(ExitCodes.usage)
        }
    }
}
