import ArgumentParser
import Foundation
import PermissionClient

/// The options every verb shares: where the server is, the key, the output format, the timeout.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("url"),
        help: ArgumentHelp(
            "The server URL (env: PERMISSION_URL; default: http://127.0.0.1:8080).", valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "The API key, sent as a Bearer token (env: PERMISSION_KEY).", valueName: "key"))
    var key: String?

    @Flag(name: .customLong("json"), help: "Print the API's JSON instead of a table.")
    var json = false

    @Option(
        name: .customLong("timeout"), help: ArgumentHelp("Seconds to wait for each attempt.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be more than 0 and at most 3600 seconds")
        }
    }

    /// The client for these options; a bad URL exits with 64.
    /// - Parameter eventsIdleTimeout: the change feed's longest wait for a byte, when not the
    ///   SDK's default.
    func makeClient(eventsIdleTimeout: Duration? = nil) throws -> PermissionClient {
        let environment = ProcessInfo.processInfo.environment
        let base = url ?? environment["PERMISSION_URL"] ?? "http://127.0.0.1:8080"
        // An empty key, given either way, is none (rather than a `Bearer ` with nothing after it).
        let apiKey = (key ?? environment["PERMISSION_KEY"]).flatMap { $0.isEmpty ? nil : $0 }
        var configuration = PermissionClient.Configuration(
            baseURL: base, apiKey: apiKey, connectTimeout: .seconds(min(timeout, 5)),
            timeout: .seconds(timeout), userAgent: "permctl/1.0")
        if let eventsIdleTimeout { configuration.eventsIdleTimeout = eventsIdleTimeout }
        do {
            return try PermissionClient(configuration: configuration)
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }

    /// Downloads `endpoint`'s body into `sink` as it arrives (`PermissionClient.downloadBlocking`).
    /// - Parameters:
    ///   - sink: takes each chunk; `false` stops the download.
    ///   - failed: called first when the download fails; it may name the exit code itself (a
    ///     sink that could not write), else the failure is printed and becomes the matching one.
    /// - Returns: the number of bytes the sink took.
    func download(
        _ client: PermissionClient, _ endpoint: Endpoint<[UInt8]>, into sink: (UnsafeRawBufferPointer) -> Bool,
        failed: () -> Int32?
    ) throws -> PermissionResponse<Int64> {
        do {
            return try client.downloadBlocking(endpoint, into: sink)
        } catch {
            if let code = failed() { throw ExitCode(code) }
            Output.error(error.description)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }

    /// Performs `endpoint`; a failure is printed to stderr and becomes the matching exit code.
    func call<Value>(_ client: PermissionClient, _ endpoint: Endpoint<Value>) throws -> PermissionResponse<Value> {
        do {
            return try client.sendBlocking(endpoint)
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }
}
