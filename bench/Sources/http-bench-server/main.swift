import Foundation
import HTTPCore
import Logging

// Serves a fixed ~280-byte JSON body on GET /bench through the same router and middleware a
// real service uses (request id, access log at a level that is filtered out, errors).
// Usage: http-bench-server [port] [host]

// First, while the process has one thread: SIGTERM and SIGINT wait for the signal thread.
let signals = ShutdownSignals()
let arguments = CommandLine.arguments
var configuration = HTTPServerConfiguration(host: arguments.count > 2 ? arguments[2] : "127.0.0.1", port: 8081)
if arguments.count > 1, let port = Int(arguments[1]) { configuration.port = port }
configuration.maxConnections = 4096
configuration.maxRequestsPerConnection = 1_000_000

var logger = Logger(label: "http-bench-server")
logger.logLevel = .warning

let body =
    Array(
        #"{"user":"u42","app":"com.example.maps","service":"location","status":"authorized","level":"whenInUse","provisional":false,"once":false,"expiresAt":null,"reason":"userConsent","purpose":"Your location is used to show nearby stops.","updatedAt":"2026-11-22T10:00:00Z","version":3}"#
            .utf8) + [0x0A]

var router = Router()
router.use(RequestIdMiddleware())
router.use(AccessLogMiddleware(level: .info))
router.use(ErrorMiddleware())
router.get("/bench") { _, _ in
    HTTPResponse(status: .ok, contentType: "application/json", body: body)
}

let server = HTTPServer(configuration: configuration, responder: router.buildResponder(), logger: logger)
do {
    try server.start()
} catch {
    logger.critical("cannot start", metadata: ["error": "\(error)"])
    exit(1)
}
signals.serve { _ in server.shutdown() }
FileHandle.standardOutput.write(Data("listening on \(server.localPort)\n".utf8))
server.waitUntilStopped()
signals.finish()
