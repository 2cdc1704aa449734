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

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "A file whose first line is the API key, instead of --key (env: PERMISSION_KEY_FILE).",
            valueName: "path"))
    var keyFile: String?

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp(
            "A PEM file of the certificate authorities an https server's certificate is verified against, instead of the system's (env: PERMISSION_CA_FILE).",
            valueName: "path"))
    var caFile: String?

    @Flag(name: .customLong("json"), help: "Print the API's JSON instead of a table.")
    var json = false

    @Option(
        name: .customLong("timeout"), help: ArgumentHelp("Seconds to wait for each attempt.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be more than 0 and at most 3600 seconds")
        }
        if key != nil, keyFile != nil {
            throw ValidationError("give the key with --key or --key-file, not both")
        }
    }

    /// The key to send: `--key`, else the first line of `--key-file`, else `PERMISSION_KEY`, else
    /// the first line of `PERMISSION_KEY_FILE` (a flag wins over the environment; both variables
    /// set is a usage error, as `--key` with `--key-file` is). An empty key is none (rather than
    /// a `Bearer ` with nothing after it). A key file that cannot be read exits with 66.
    func apiKey(environment: [String: String]) throws -> String? {
        let value: String?
        if key != nil || keyFile != nil {
            value = try key ?? keyFile.map { try Self.firstLine(of: $0, named: "--key-file") }
        } else {
            let direct = environment["PERMISSION_KEY"].flatMap { $0.isEmpty ? nil : $0 }
            let file = environment["PERMISSION_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            if direct != nil, file != nil {
                Output.error("PERMISSION_KEY and PERMISSION_KEY_FILE are both set; set one")
                throw ExitCode(ExitCodes.usage)
            }
            value = try direct ?? file.map { try Self.firstLine(of: $0, named: "PERMISSION_KEY_FILE") }
        }
        return value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The largest key file read: a key is a few dozen bytes, so anything larger is not one.
    static let keyFileLimit = 4_096

    /// The first line of the key file at `path`, without its line end; exits with 66 when the
    /// file cannot be read, is larger than ``keyFileLimit`` or its first line is empty.
    private static func firstLine(of path: String, named name: String) throws -> String {
        let failure = { (why: String) -> ExitCode in
            Output.error("\(name) \(Output.visible(path)): \(why)")
            return ExitCode(ExitCodes.noInput)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw failure(String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: keyFileLimit + 1) ?? Data()
        } catch {
            throw failure("cannot be read")
        }
        guard data.count <= keyFileLimit else { throw failure("larger than \(keyFileLimit) bytes, not a key") }
        var line = Substring(String(decoding: data, as: UTF8.self)).prefix { $0 != "\n" && $0 != "\r\n" }
        if line.hasSuffix("\r") { line = line.dropLast() }
        guard !line.isEmpty else { throw failure("its first line is empty") }
        return String(line)
    }

    /// `path` when it names a file permctl can open for reading; exits with 66 otherwise, before
    /// any call (libcurl would fail each call alike, with a code a script cannot tell from a
    /// refused key).
    private static func readable(_ path: String, named name: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0, let handle = FileHandle(forReadingAtPath: path) else {
            Output.error("\(name) \(Output.visible(path)): \(String(cString: strerror(errno)))")
            throw ExitCode(ExitCodes.noInput)
        }
        try? handle.close()
        guard status.st_mode & S_IFMT == S_IFREG else {
            Output.error("\(name) \(Output.visible(path)): not a file")
            throw ExitCode(ExitCodes.noInput)
        }
        return path
    }

    /// The client for these options; a bad URL exits with 64, a CA file that cannot be read 66.
    /// - Parameter eventsIdleTimeout: the change feed's longest wait for a byte, when not the
    ///   SDK's default.
    func makeClient(eventsIdleTimeout: Duration? = nil) throws -> PermissionClient {
        let environment = ProcessInfo.processInfo.environment
        let base = url ?? environment["PERMISSION_URL"] ?? "http://127.0.0.1:8080"
        let apiKey = try apiKey(environment: environment)
        var configuration = PermissionClient.Configuration(
            baseURL: base, apiKey: apiKey, connectTimeout: .seconds(min(timeout, 5)),
            timeout: .seconds(timeout), userAgent: "permctl/1.0")
        if let eventsIdleTimeout { configuration.eventsIdleTimeout = eventsIdleTimeout }
        if let caFile {
            configuration.caFile = try Self.readable(caFile, named: "--cacert")
        } else if let path = environment["PERMISSION_CA_FILE"], !path.isEmpty {
            configuration.caFile = try Self.readable(path, named: "PERMISSION_CA_FILE")
        }
        do {
            return try PermissionClient(configuration: configuration)
        } catch {
            Output.failure(error, json: json)
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
            Output.failure(error, json: json)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }

    /// Performs `endpoint`; a failure is printed to stderr and becomes the matching exit code.
    func call<Value>(_ client: PermissionClient, _ endpoint: Endpoint<Value>) throws -> PermissionResponse<Value> {
        do {
            return try client.sendBlocking(endpoint)
        } catch {
            Output.failure(error, json: json)
            throw ExitCode(ExitCodes.code(for: error))
        }
    }
}
