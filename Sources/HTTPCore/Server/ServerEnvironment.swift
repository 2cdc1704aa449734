import Dispatch
import Logging

/// What every connection of one server shares, fixed at `start()`.
struct ServerEnvironment: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let parser: HTTPRequestParser
    /// Where responders that may block and streamed bodies run, off the loops: a thread for
    /// each at once, up to the connection cap.
    let workers: WorkerPool
    /// A random per-server prefix of generated request ids.
    let requestIdPrefix: String
}
