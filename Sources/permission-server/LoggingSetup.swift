import Logging

/// Installs the process-wide log handler once, before the first logger is made.
enum LoggingSetup {
    /// - Parameters:
    ///   - format: "json" (one object a line) or "text".
    ///   - level: the lowest level written.
    static func bootstrap(format: String, level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: format == "json" ? .json : .text)
            handler.logLevel = level
            return handler
        }
    }

    /// Installs the handler `configuration` asks for, then warns of each `PERMISSION_*`
    /// variable of the environment that is no setting (``ServerConfiguration/unknownEnvironment``):
    /// a misspelt name would otherwise be ignored without a word, and its default used; and of
    /// each flag given that the subcommand does not read (``ServerConfiguration/unreadFlags``).
    static func bootstrap(_ configuration: ServerConfiguration) {
        bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server")
        for name in configuration.unknownEnvironment {
            var metadata: Logger.Metadata = ["variable": "\(name)"]
            if let near = Settings.nearest(toEnvironment: name) { metadata["did-you-mean"] = "\(near)" }
            logger.warning("ignoring an environment variable that is no setting", metadata: metadata)
        }
        for flag in configuration.unreadFlags {
            logger.warning("ignoring a flag this command does not read (serve does)", metadata: ["flag": "--\(flag)"])
        }
    }
}
