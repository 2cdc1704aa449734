import Dispatch
import Logging
internal import Ownership
import PermissionDomain
import Synchronization

/// Writes the changes time makes (SPEC §5: expired prompts, lapsed Allow Once grants; SPEC
/// §11: lapsed expiring grants, location alerts; actor `system`): a `DispatchSourceTimer` calls `PermissionService.sweep` every interval, again at
/// once while a sweep hits its limit, and wakes the event streams when something changed.
/// The timer belongs to `queue` (``QueueOwned``, checked in debug builds). A failing sweep (the
/// database is down) is logged at its first failure, then at most once every
/// ``failureLogInterval``, and once more when a sweep succeeds again (``RepeatedFailureLog``).
final class Sweeper: Sendable {
    private let permissions: PermissionService
    private let broadcaster: ChangeBroadcaster
    private let interval: Duration
    private let logger: Logger
    private let queue: DispatchQueue
    private let timer: QueueOwned<(any DispatchSourceTimer)?>
    static let batch = 500
    /// The least time between two `sweep failed` lines of one outage.
    static let failureLogInterval: Duration = .seconds(30)
    private let failureLog = Mutex(RepeatedFailureLog(interval: failureLogInterval))

    init(permissions: PermissionService, broadcaster: ChangeBroadcaster, interval: Duration, logger: Logger) {
        self.permissions = permissions
        self.broadcaster = broadcaster
        self.interval = interval
        self.logger = logger
        let queue = DispatchQueue(label: "permission.sweeper")
        self.queue = queue
        self.timer = QueueOwned(nil, owner: QueueOwner("the sweeper", marking: queue))
    }

    func start() {
        queue.sync {
            guard timer.value == nil else { return }
            let nanoseconds = max(
                1_000_000,
                Int(interval.components.seconds) * 1_000_000_000
                    + Int(interval.components.attoseconds / 1_000_000_000))
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(
                deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                leeway: .milliseconds(10))
            source.setEventHandler { [weak self] in self?.tick() }
            timer.value = source
            source.resume()
        }
    }

    /// Stops the timer; a sweep in progress finishes first.
    func stop() {
        queue.sync {
            timer.value?.cancel()
            timer.value = nil
        }
    }

    /// One sweep, repeated while it reaches the batch limit.
    func tick() {
        do {
            while true {
                let result = try permissions.sweep(limit: Self.batch)
                if let failures = failureLog.withLock({ $0.succeeded() }) {
                    logger.notice("sweeping again after failed sweeps", metadata: ["failedSweeps": "\(failures)"])
                }
                if result.isEmpty { return }
                broadcaster.notify()
                logger.debug(
                    "swept",
                    metadata: [
                        "expiredPrompts": "\(result.expiredPrompts)", "lapsedGrants": "\(result.lapsedGrants)",
                        "locationAlerts": "\(result.locationAlerts)", "locationAlertsPutOff": "\(result.locationAlertsPutOff)",
                    ])
                if !result.reached(Self.batch) { return }
            }
        } catch {
            let now = ContinuousClock.now
            guard let unlogged = failureLog.withLock({ $0.failed(at: now) }) else { return }
            var metadata: Logger.Metadata = ["error": .string(String(describing: error))]
            if unlogged > 0 { metadata["unloggedFailures"] = "\(unlogged)" }
            logger.error("sweep failed", metadata: metadata)
        }
    }
}
