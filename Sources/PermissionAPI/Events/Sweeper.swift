import Dispatch
import Logging
import PermissionDomain

/// Writes the changes time makes (SPEC §5: expired prompts, lapsed Allow Once grants; SPEC
/// §11: lapsed expiring grants; actor `system`): a `DispatchSourceTimer` calls `PermissionService.sweep` every interval, again at
/// once while a sweep hits its limit, and wakes the event streams when something changed.
///
/// `@unchecked Sendable`: its one variable, the timer, is reached only through an accessor
/// that checks in debug builds that it runs on `queue` (`dispatchPrecondition`).
final class Sweeper: @unchecked Sendable {
    private let permissions: PermissionService
    private let broadcaster: ChangeBroadcaster
    private let interval: Duration
    private let logger: Logger
    private let queue = DispatchQueue(label: "permission.sweeper")
    private var queueTimer: (any DispatchSourceTimer)?

    /// Touched only on `queue`.
    private var timer: (any DispatchSourceTimer)? {
        get {
            #if DEBUG
            dispatchPrecondition(condition: .onQueue(queue))
            #endif
            return queueTimer
        }
        set {
            #if DEBUG
            dispatchPrecondition(condition: .onQueue(queue))
            #endif
            queueTimer = newValue
        }
    }
    static let batch = 500

    init(permissions: PermissionService, broadcaster: ChangeBroadcaster, interval: Duration, logger: Logger) {
        self.permissions = permissions
        self.broadcaster = broadcaster
        self.interval = interval
        self.logger = logger
    }

    func start() {
        queue.sync {
            guard timer == nil else { return }
            let nanoseconds = max(1_000_000, Int(interval.components.seconds) * 1_000_000_000
                + Int(interval.components.attoseconds / 1_000_000_000))
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(
                deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                leeway: .milliseconds(10))
            source.setEventHandler { [weak self] in self?.tick() }
            timer = source
            source.resume()
        }
    }

    /// Stops the timer; a sweep in progress finishes first.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    /// One sweep, repeated while it reaches the batch limit.
    func tick() {
        do {
            while true {
                let result = try permissions.sweep(limit: Self.batch)
                if result.isEmpty { return }
                broadcaster.notify()
                logger.debug(
                    "swept", metadata: ["expiredPrompts": "\(result.expiredPrompts)", "lapsedGrants": "\(result.lapsedGrants)"])
                if result.expiredPrompts < Self.batch && result.lapsedGrants < Self.batch { return }
            }
        } catch {
            logger.error("sweep failed", metadata: ["error": .string(String(describing: error))])
        }
    }
}
