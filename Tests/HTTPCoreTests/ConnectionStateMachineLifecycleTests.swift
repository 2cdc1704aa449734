import Testing

@testable import HTTPCore

/// `ConnectionStateMachine`'s close, shutdown, timers, deadlines and interest in every state,
/// with a manual clock (see `MachineFixture` for the bounds), and every refused event.
@Suite struct ConnectionStateMachineLifecycleTests {
    typealias Machine = ConnectionStateMachine
    let t = MachineFixture.began

    @Test func closeClosesAtOnceExceptUnderTheWorkerAndOnlyOnce() {
        for fixture in MachineFixture.allCases {
            var machine = fixture.machine
            let expected: Machine.CloseAction =
                switch fixture {
                case .closed: .none
                case .respondingWorker: .deferred
                default: .close
                }
            #expect(machine.closeRequested() == expected, "\(fixture)")
            #expect(machine.isClosed == (fixture != .respondingWorker), "\(fixture)")
        }
        var blocked = MachineFixture.closing.blockedMachine
        #expect(blocked.closeRequested() == .close)
        #expect(!blocked.isWriteBlocked && blocked.interest == .none && blocked.deadline(now: { 0 }) == 0)
    }

    @Test func shutdownClosesOnlyAnIdleConnectionAndMarksTheRest() {
        for fixture in MachineFixture.allCases {
            var machine = fixture.machine
            #expect(machine.shutdownRequested(inputIsEmpty: true) == (fixture == .fresh || fixture == .partialHead), "\(fixture)")
            #expect(machine.shuttingDown)
        }
        var buffered = MachineFixture.fresh.machine
        #expect(buffered.shutdownRequested(inputIsEmpty: false) == false)
        var blocked = MachineFixture.fresh.blockedMachine
        #expect(blocked.shutdownRequested(inputIsEmpty: true) == false)
    }

    @Test func theTimerClosesRefusesOrAbortsByState() {
        let expected: [MachineFixture: Machine.TimeoutAction] = [
            .fresh: .close, .partialHead: .rejectHead, .readingBody: .rejectBody, .respondingLoop: .ignore,
            .respondingWorker: .ignore, .closing: .close, .draining: .close, .closed: .ignore,
        ]
        for (fixture, action) in expected {
            #expect(fixture.machine.timerFired() == action, "\(fixture)")
        }
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody, .respondingLoop, .closing, .draining] {
            #expect(fixture.blockedMachine.timerFired() == .abort, "\(fixture)")
        }
    }

    @Test func deadlinesFollowTheStateWithAManualClock() {
        let now: UInt64 = 5_000
        let expected: [MachineFixture: UInt64] = [
            .fresh: now + 100,  // a new connection's first head: headerTimeout from now
            .partialHead: t + 100,  // from the head's first byte
            .readingBody: t + 200,
            .respondingLoop: 0, .respondingWorker: 0, .closing: 0,
            .draining: t + 500,
            .closed: 0,
        ]
        for (fixture, deadline) in expected {
            #expect(fixture.machine.deadline(now: { now }) == deadline, "\(fixture)")
        }
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody, .respondingLoop, .closing, .draining] {
            #expect(fixture.blockedMachine.deadline(now: { now }) == t + 400, "\(fixture)")
        }
        var kept = MachineFixture.respondingLoop.machine
        kept.responseQueued(keepAlive: true)
        #expect(kept.deadline(now: { now }) == now + 300)  // idle keep-alive
        #expect(
            MachineFixture.readingBody.machine.deadline(now: {
                Issue.record("clock read")
                return 0
            }) == t + 200)
    }

    @Test func interestFollowsTheState() {
        let read = EventLoop.Interest(read: true, write: false)
        let expected: [MachineFixture: EventLoop.Interest] = [
            .fresh: read, .partialHead: read, .readingBody: read, .respondingLoop: read,
            .respondingWorker: .none, .closing: read, .draining: read, .closed: .none,
        ]
        for (fixture, interest) in expected {
            #expect(fixture.machine.interest == interest, "\(fixture)")
        }
    }

    /// A keep-alive connection through two requests, the second with a body, then a refusal.
    @Test func aConnectionsLifeInOrder() {
        var machine = MachineFixture.fresh.machine
        #expect(machine.readable() == .read)
        #expect(machine.bytesRead(20) == .process)
        #expect(machine.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { 1 }) == .respond)
        #expect(machine.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: false))
        machine.responseQueued(keepAlive: true)
        #expect(machine.flushed() == .none)
        #expect(machine.headIncomplete(buffered: 3, now: { 10 }) == .wait)
        #expect(
            machine.headParsed(framing: .contentLength(3), expectContinue: false, inputIsEmpty: false, now: { 11 })
                == .readBody(sendContinue: false))
        machine.bodyComplete()
        machine.offloaded()
        #expect(machine.workerFinished() == .finish)
        machine.responseQueued(keepAlive: true)
        #expect(machine.requestCount == 2)
        #expect(machine.headIncomplete(buffered: 200, now: { 20 }) == .rejectTooLarge)
        #expect(machine.rejected() == true)
        #expect(machine.flushed() == .halfClose)
        #expect(machine.closingFlushed() == .shutdownWrite)
        machine.halfClosed(now: 30)
        #expect(machine.bytesRead(64) == .close)
        #expect(machine.closeRequested() == .close)
        #expect(machine.readable() == .ignore)
    }

    /// Every event a state cannot take stops the process instead of going unnoticed.
    @Test(arguments: MachineEvent.refused)
    func aRefusedEventTraps(_ refusal: MachineEvent.Refusal) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [refusal] in
            var machine = refusal.state.machine
            refusal.event.apply(to: &machine)
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("HTTP connection: ") == true)
    }

    @Test func refusedEventsTrapWhileASendIsBlockedToo() async {
        await #expect(processExitsWith: .failure) {
            var machine = MachineFixture.respondingLoop.blockedMachine
            machine.offloaded()
        }
        await #expect(processExitsWith: .failure) {
            var machine = MachineFixture.respondingLoop.blockedMachine
            machine.streamStarted()
        }
        await #expect(processExitsWith: .failure) {
            var machine = MachineFixture.fresh.blockedMachine
            machine.sendBlocked(now: 2)
        }
        await #expect(processExitsWith: .failure) {
            var machine = MachineFixture.readingBody.machine
            machine.peerFinished()
            _ = machine.rejected()
            machine.halfClosed(now: 2)
        }
    }
}
