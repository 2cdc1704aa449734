@testable import HTTPCore

/// Machines in each state of `ConnectionStateMachine`, reached through its own events from a
/// new connection, with a manual clock: every instant is a plain number of nanoseconds.
enum MachineFixture: String, Codable, CaseIterable, Sendable {
    case fresh, partialHead, readingBody, respondingLoop, respondingWorker, closing, draining, closed

    /// Bounds small enough to read in the expectations.
    static let settings: ConnectionStateMachine.Settings = {
        var configuration = HTTPServerConfiguration()
        configuration.headerTimeout = .nanoseconds(100)
        configuration.bodyTimeout = .nanoseconds(200)
        configuration.idleTimeout = .nanoseconds(300)
        configuration.writeTimeout = .nanoseconds(400)
        configuration.drainTimeout = .nanoseconds(500)
        configuration.drainMaxBytes = 64
        configuration.maxRequestsPerConnection = 3
        configuration.limits.maxHeaderBytes = 90
        configuration.limits.maxRequestLineBytes = 10
        configuration.limits.maxBodyBytes = 1000
        return ConnectionStateMachine.Settings(configuration)
    }()

    /// When the fixture's current state began.
    static let began: UInt64 = 1_000

    var machine: ConnectionStateMachine {
        var machine = ConnectionStateMachine(settings: Self.settings)
        let t = Self.began
        switch self {
        case .fresh: break
        case .partialHead: _ = machine.headIncomplete(buffered: 5, now: { t })
        case .readingBody:
            _ = machine.headParsed(framing: .contentLength(10), expectContinue: false, inputIsEmpty: true, now: { t })
        case .respondingLoop:
            _ = machine.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { t })
        case .respondingWorker:
            _ = machine.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { t })
            machine.offloaded()
        case .closing:
            _ = machine.rejected()
        case .draining:
            _ = machine.rejected()
            machine.halfClosed(now: t)
        case .closed:
            _ = machine.closeRequested()
        }
        return machine
    }

    /// The same, with a send blocked since `began` (not for states that cannot block).
    var blockedMachine: ConnectionStateMachine {
        var machine = self.machine
        machine.sendBlocked(now: Self.began)
        return machine
    }
}
