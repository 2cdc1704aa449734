import Dispatch
import Logging
internal import Ownership
import PermissionDomain
import Synchronization

/// Writes the changes time makes (SPEC §5: expired prompts, lapsed Allow Once grants; SPEC
/// §11: lapsed expiring grants, location alerts; actor `system`): a `DispatchSourceTimer` calls `PermissionService.sweep` every interval, again at
/// once while a sweep hits its limit, and wakes the event streams when something changed.
/// At its first tick and then once every ``purgeInterval`` it also deletes the prompts and
/// consent sessions that ended longer ago than `--ended-retention` (``PermissionService/purgeEnded(now:limit:)``).
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

    /// The least time between two purges of ended prompts and consent sessions
    /// (``PermissionService/purgeEnded(now:limit:)``), which need not run every second.
    static let purgeInterval: Duration = .seconds(60)
    /// When the next purge is due: the first tick purges.
    private let purgeDue = Mutex(ContinuousClock.now)

    /// One sweep, repeated while it reaches the batch limit; then a purge when one is due.
    func tick() {
        sweepChanges()
        purgeIfDue()
    }

    /// Deletes what ended longer ago than `--ended-retention`, repeated while a batch is full.
    private func purgeIfDue() {
        let now = ContinuousClock.now
        guard
            purgeDue.withLock({ due in
                guard now >= due else { return false }
                due = now + Self.purgeInterval
                return true
            })
        else { return }
        do {
            var total = PermissionService.Purge()
            while true {
                let purge = try permissions.purgeEnded(limit: Self.batch)
                total.prompts += purge.prompts
                total.consentSessions += purge.consentSessions
                if !purge.reached(Self.batch) { break }
            }
            if !total.isEmpty {
                logger.info(
                    "deleted ended prompts and consent sessions past their retention",
                    metadata: ["prompts": "\(total.prompts)", "consentSessions": "\(total.consentSessions)"])
            }
        } catch {
            logger.error("purge of ended records failed; trying again in a minute", metadata: ["error": "\(error)"])
        }
    }

    private func sweepChanges() {
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
