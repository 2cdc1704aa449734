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
}
