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
    /// Submits a job to `workers`: what a request on a loop gets as `RequestContext.worker`,
    /// made once.
    let submitToWorker: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// A random per-server prefix of generated request ids.
    let requestIdPrefix: String

    init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, parser: HTTPRequestParser,
        workers: WorkerPool, requestIdPrefix: String
    ) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.parser = parser
        self.workers = workers
        self.submitToWorker = { [workers] job in workers.submit(job) }
        self.requestIdPrefix = requestIdPrefix
    }
}
