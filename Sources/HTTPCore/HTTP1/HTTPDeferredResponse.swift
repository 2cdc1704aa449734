import Dispatch
import Synchronization

/// A response given later, from any thread: what a responder returns (as
/// `HTTPResponse.deferred(_:)`) when the answer waits on work that completes elsewhere, such as
/// a durable write that the store's writer commits, so that no thread blocks waiting for it.
///
/// The engine serves none of the connection's events meanwhile, as for a worker's request,
/// and sends the outcome when ``complete(_:)`` is called. Middlewares that change or
/// observe responses do so through ``transform(_:)`` (``HTTPResponse/mapFinal(_:)``), which
/// runs on the final outcome in the order they registered, the order the synchronous response
/// passes them in; a failure that no transform turns into a response is answered as a thrown
/// error would be (500 problem+json, or an `HTTPError`'s own).
///
/// The outcome is delivered once both are known: the outcome, and the engine's waiter, which the
/// engine sets after the middleware chain returned (so every transform is registered by then).
/// Delivery, transforms included, runs on the thread that supplied the last of the two.
public final class HTTPDeferredResponse: Sendable {
    public typealias Outcome = Result<HTTPResponse, any Error>
    typealias Transform = @Sendable (Outcome) -> Outcome

    private struct State {
        var outcome: Outcome?
        var transforms: [Transform] = []
        var waiter: (@Sendable (Outcome) -> Void)?
        var delivered = false
        /// Started once the waiter is set (``whenAwaited(_:)``).
        var start: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// The error a deferred response completed with another deferred response is answered with.
    struct Nested: Error, CustomStringConvertible {
        var description: String { "a deferred response completed with another deferred response" }
    }

    public init() {}

    /// Completes the response; later calls are ignored.
    public func complete(_ outcome: Outcome) {
        let delivery = state.withLock { state -> (Outcome, [Transform], @Sendable (Outcome) -> Void)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            return Self.take(&state)
        }
        if let delivery { Self.deliver(delivery) }
    }

    /// Registers `transform`, applied to the outcome before it is sent, after the transforms
    /// registered before it. Middlewares register while the chain returns, before the engine
    /// waits; registering once the engine waits stops the process (it could never be applied).
    public func transform(_ transform: @escaping @Sendable (Outcome) -> Outcome) {
        state.withLock { state in
            precondition(state.waiter == nil, "a deferred response's transforms are registered before the engine waits for it")
            state.transforms.append(transform)
        }
    }

    /// Runs `start` once the engine waits for the response (at once if it already does): for
    /// work that must not begin before the engine has handed the connection over, such as a
    /// handler run again on a worker thread (``RequestContext/offload(_:)``).
    func whenAwaited(_ start: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            precondition(state.start == nil, "a deferred response has one start")
            guard state.waiter == nil else { return true }
            state.start = start
            return false
        }
        if now { start() }
    }

    /// The engine's side: `waiter` gets the transformed outcome once it is complete.
    func whenComplete(_ waiter: @escaping @Sendable (Outcome) -> Void) {
        let (delivery, start) = state.withLock {
            state -> ((Outcome, [Transform], @Sendable (Outcome) -> Void)?, (@Sendable () -> Void)?) in
            precondition(state.waiter == nil, "a deferred response is waited for once")
            state.waiter = waiter
            defer { state.start = nil }
            return (Self.take(&state), state.start)
        }
        start?()
        if let delivery { Self.deliver(delivery) }
    }

    /// Blocks until the outcome is delivered (tests that run a responder without the engine).
    package func waitForOutcome() -> Outcome {
        let box = Mutex<Outcome?>(nil)
        let delivered = DispatchSemaphore(value: 0)
        whenComplete { outcome in
            box.withLock { $0 = outcome }
            delivered.signal()
        }
        delivered.wait()
        return box.withLock { $0! }
    }

    /// What to deliver, when both the outcome and the waiter are there and nothing was delivered.
    private static func take(_ state: inout State) -> (Outcome, [Transform], @Sendable (Outcome) -> Void)? {
        guard !state.delivered, let outcome = state.outcome, let waiter = state.waiter else { return nil }
        state.delivered = true
        let transforms = state.transforms
        state.transforms = []
        return (outcome, transforms, waiter)
    }

    /// Applies the transforms outside the lock, then hands the outcome to the waiter.
    private static func deliver(_ delivery: (Outcome, [Transform], @Sendable (Outcome) -> Void)) {
        var outcome = delivery.0
        for transform in delivery.1 { outcome = transform(outcome) }
        delivery.2(outcome)
    }
}

extension HTTPResponse {
    /// A response given later through `deferred` (see ``HTTPDeferredResponse``).
    public static func deferred(_ deferred: HTTPDeferredResponse) -> HTTPResponse {
        HTTPResponse(status: .ok, body: .deferred(deferred))
    }

    /// The response to come, when this one is a placeholder for it.
    public var deferred: HTTPDeferredResponse? {
        if case .deferred(let deferred) = body { return deferred }
        return nil
    }

    /// `change` applied to this response now, or to the final response when this one is
    /// deferred (a failure passes through). For middlewares that decorate responses.
    public func mapFinal(_ change: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponse {
        guard let deferred else { return change(self) }
        deferred.transform { $0.map(change) }
        return self
    }
}
