import Dispatch
import Logging

/// What every connection of one server shares, fixed at `start()`.
struct ServerEnvironment: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let parser: HTTPRequestParser
    /// The shared target of every connection queue, so the pool stays small (a serial queue per
    /// connection without a shared target grew to 200+ threads in a peer's measurement).
    let workerQueue: DispatchQueue
    /// A random per-server prefix of generated request ids.
    let requestIdPrefix: String
}
