import Testing

@testable import HTTPCore

/// `ConnectionStateMachine` on its own, pure tier: every event in every state that accepts it,
/// with a manual clock (`MachineFixture.began` and plain numbers). The refusals are in
/// `ConnectionStateMachineTrapTests`. Timeouts: header 100, body 200, idle 300, write 400,
/// drain 500 ns; a partial head may hold 100 bytes; at most 3 requests per connection.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    let t = MachineFixture.began

    // MARK: Read side

    @Test func readableReadsWhereInputIsWantedAndSuspendsWhereNot() {
        let expected: [MachineFixture: Machine.ReadableAction] = [
            .fresh: .read, .partialHead: .read, .readingBody: .read, .draining: .read,
            .respondingLoop: .suspendReading, .respondingWorker: .suspendReading, .closing: .suspendReading,
            .closed: .ignore,
        ]
        for (fixture, action) in expected {
            var machine = fixture.machine
            #expect(machine.readable() == action, "\(fixture)")
            #expect(machine.readSuspended == (action == .suspendReading), "\(fixture)")
        }
    }

    @Test func bytesReadAreProcessedOrCountedAgainstTheDrain() {
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody] {
            var machine = fixture.machine
            #expect(machine.bytesRead(10) == .process)
            #expect(machine.state == fixture.machine.state)
        }
        var draining = MachineFixture.draining.machine
        #expect(draining.bytesRead(60) == .discard)
        #expect(draining.state == .draining(remaining: 4, startedAt: t))
        #expect(draining.bytesRead(4) == .close)
    }

    @Test func peerFinishedIsRememberedAndStopsReadInterest() {
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody, .draining] {
            var machine = fixture.machine
            machine.peerFinished()
            #expect(machine.peerClosed)
            #expect(machine.interest == .init(read: false, write: false), "\(fixture)")
        }
    }

    @Test func nextInputStepFollowsTheStateAndWaitsForABlockedSend() {
        let expected: [MachineFixture: Machine.InputStep] = [
            .fresh: .parseHead, .partialHead: .parseHead, .readingBody: .decodeBody, .respondingLoop: .stop,
            .respondingWorker: .stop, .closing: .stop, .draining: .stop, .closed: .stop,
        ]
        for (fixture, step) in expected {
            #expect(fixture.machine.nextInputStep(inputIsEmpty: false, unsentBytes: 0) == step, "\(fixture)")
            #expect(fixture.machine.nextInputStep(inputIsEmpty: true, unsentBytes: 0) == .stop, "\(fixture)")
        }
        #expect(MachineFixture.fresh.blockedMachine.nextInputStep(inputIsEmpty: false, unsentBytes: 0) == .stop)
        #expect(MachineFixture.readingBody.blockedMachine.nextInputStep(inputIsEmpty: false, unsentBytes: 0) == .stop)
    }

    /// Answers to pipelined requests up to the bound unsent: the next head waits for a flush;
    /// a body already begun is read on (its request was read).
    @Test func nextInputStepFlushesFirstAtThePipelinedOutputBound() {
        let limit = Machine.pipelinedOutputLimit
        for fixture in [MachineFixture.fresh, .partialHead] {
            #expect(fixture.machine.nextInputStep(inputIsEmpty: false, unsentBytes: limit - 1) == .parseHead)
            #expect(fixture.machine.nextInputStep(inputIsEmpty: false, unsentBytes: limit) == .flushFirst)
            #expect(fixture.machine.nextInputStep(inputIsEmpty: true, unsentBytes: limit) == .stop)
            #expect(fixture.blockedMachine.nextInputStep(inputIsEmpty: false, unsentBytes: limit) == .stop)
        }
        #expect(MachineFixture.readingBody.machine.nextInputStep(inputIsEmpty: false, unsentBytes: limit) == .decodeBody)
    }

    @Test func anIncompleteHeadStartsItsClockOnceAndIsBounded() {
        var machine = MachineFixture.fresh.machine
        #expect(machine.headIncomplete(buffered: 10, now: { 7 }) == .wait)
        #expect(machine.state == .awaitingHead(startedAt: 7))
        #expect(
            machine.headIncomplete(
                buffered: 100,
                now: {
                    Issue.record("clock read again")
                    return 9
                }) == .wait)
        #expect(machine.state == .awaitingHead(startedAt: 7))
        #expect(machine.headIncomplete(buffered: 101, now: { 9 }) == .rejectTooLarge)
    }

    @Test func aParsedHeadIsCountedAndFramedIntoItsNextState() {
        var none = MachineFixture.partialHead.machine
        #expect(none.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { 5 }) == .respond)
        #expect(none.state == .responding(.loop))
        #expect(none.requestCount == 1)

        var body = MachineFixture.fresh.machine
        #expect(
            body.headParsed(framing: .chunked, expectContinue: true, inputIsEmpty: true, now: { 5 })
                == .readBody(sendContinue: true))
        #expect(body.state == .readingBody(startedAt: 5))
        var early = MachineFixture.fresh.machine
        #expect(
            early.headParsed(framing: .contentLength(1000), expectContinue: true, inputIsEmpty: false, now: { 5 })
                == .readBody(sendContinue: false))

        var tooLarge = MachineFixture.partialHead.machine
        #expect(
            tooLarge.headParsed(framing: .contentLength(1001), expectContinue: true, inputIsEmpty: true, now: { 5 })
                == .rejectTooLarge)
        #expect(tooLarge.state == .awaitingHead(startedAt: nil))
        #expect(tooLarge.requestCount == 1)
    }

    @Test func aCompleteBodyStartsTheResponder() {
        var machine = MachineFixture.readingBody.machine
        machine.bodyComplete()
        #expect(machine.state == .responding(.loop))
    }

    @Test func aRejectionClosesAfterItsResponseAndFlushesUnlessBlocked() {
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody] {
            var machine = fixture.machine
            #expect(machine.rejected() == true)
            #expect(machine.state == .closing)
            var blocked = fixture.blockedMachine
            #expect(blocked.rejected() == false)
            #expect(blocked.state == .closing)
        }
    }

    // MARK: Responses and the worker

    @Test func theWorkerOwnsTheConnectionUntilItHandsBack() {
        var machine = MachineFixture.respondingLoop.machine
        machine.offloaded()
        #expect(machine.state == .responding(.worker(closeRequested: false)))
        #expect(machine.isOffloaded && !machine.mayFlush)
        #expect(machine.interest == .none)
        #expect(machine.workerFinished() == .finish)
        #expect(machine.state == .responding(.loop))

        var closing = MachineFixture.respondingWorker.machine
        #expect(closing.closeRequested() == .deferred)
        #expect(closing.state == .responding(.worker(closeRequested: true)))
        #expect(closing.workerFinished() == .close)
        #expect(closing.closeRequested() == .close)
        #expect(closing.isClosed)
    }

    @Test func keepAliveNeedsTheRequestTheCapNoShutdownAndNoClose() {
        var machine = MachineFixture.respondingLoop.machine  // request 1 of 3
        #expect(machine.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: false))
        #expect(!machine.mayKeepAlive(requestWantsIt: false, serverShuttingDown: false, responseSaysClose: false))
        #expect(!machine.mayKeepAlive(requestWantsIt: true, serverShuttingDown: true, responseSaysClose: false))
        #expect(!machine.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: true))
        // Short-circuit: nothing past a false condition is read (the server's lock, the header).
        let kept = machine.mayKeepAlive(requestWantsIt: false, serverShuttingDown: unexpected(), responseSaysClose: unexpected())
        #expect(!kept)
        _ = machine.shutdownRequested(inputIsEmpty: true)
        #expect(!machine.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: false))

        var third = MachineFixture.fresh.machine
        for _ in 0..<3 {
            _ = third.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { 0 })
            third.responseQueued(keepAlive: true)
        }
        #expect(third.requestCount == 3)
        #expect(!third.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: false))
    }

    @Test func aQueuedResponseLeadsToTheNextHeadOrToClosing() {
        var keep = MachineFixture.respondingLoop.machine
        keep.responseQueued(keepAlive: true)
        #expect(keep.state == .awaitingHead(startedAt: nil))
        var last = MachineFixture.respondingLoop.machine
        last.responseQueued(keepAlive: false)
        #expect(last.state == .closing)
    }

    @Test func aStreamRunsOnTheWorkerAndEndsInOneOfThreeWays() {
        var machine = MachineFixture.respondingLoop.machine
        machine.streamStarted()
        #expect(machine.isOffloaded)
        var ok = machine
        #expect(ok.streamEnded(completed: true, keepAlive: true, inputIsEmpty: true) == .resume)
        #expect(ok.state == .awaitingHead(startedAt: nil))
        var last = machine
        #expect(last.streamEnded(completed: true, keepAlive: false, inputIsEmpty: true) == .resume)
        #expect(last.state == .closing)
        var failed = machine
        #expect(failed.streamEnded(completed: false, keepAlive: true, inputIsEmpty: true) == .close(abort: true))
        #expect(failed.state == .responding(.loop))
        var asked = machine
        #expect(asked.closeRequested() == .deferred)
        #expect(asked.streamEnded(completed: true, keepAlive: true, inputIsEmpty: true) == .close(abort: false))
        // A graceful shutdown begun while it ran: the stream was the last response.
        var stopping = machine
        #expect(stopping.shutdownRequested(inputIsEmpty: true) == false)
        #expect(stopping.streamEnded(completed: true, keepAlive: true, inputIsEmpty: true) == .resume)
        #expect(stopping.state == .closing)
        #expect(stopping.flushed() == .halfClose)
        // A request the client pipelined before it is still answered (with `close`).
        var pipelined = machine
        _ = pipelined.shutdownRequested(inputIsEmpty: false)
        #expect(pipelined.streamEnded(completed: true, keepAlive: true, inputIsEmpty: false) == .resume)
        #expect(pipelined.state == .awaitingHead(startedAt: nil))
        #expect(!pipelined.mayKeepAlive(requestWantsIt: true, serverShuttingDown: false, responseSaysClose: false))
    }

    /// A keep-alive answer queued before a graceful shutdown began, and blocked sending: once
    /// it is out, the connection closes instead of waiting idle for the shutdown's deadline.
    @Test func aDrainedSendDuringShutdownHalfCloses() {
        var machine = MachineFixture.fresh.blockedMachine
        #expect(machine.shutdownRequested(inputIsEmpty: true) == false, "blocked: not closed at once")
        #expect(machine.writeDrained(inputIsEmpty: true) == .halfClose)
        #expect(machine.state == .closing)
        var pipelined = MachineFixture.fresh.blockedMachine
        _ = pipelined.shutdownRequested(inputIsEmpty: false)
        #expect(pipelined.writeDrained(inputIsEmpty: false) == .resumeReading, "the buffered request is answered")
    }

    // MARK: Write side

    @Test func aBlockedSendArmsWriteInterestAndSuspendsReading() {
        for fixture in [MachineFixture.fresh, .partialHead, .readingBody, .respondingLoop, .closing, .draining] {
            var machine = fixture.machine
            machine.sendBlocked(now: 42)
            #expect(machine.writeBlockedSince == 42 && machine.readSuspended, "\(fixture)")
            #expect(machine.interest == .init(read: false, write: true), "\(fixture)")
            machine.sent(now: { 50 })
            #expect(machine.writeBlockedSince == 50)
        }
        var unblocked = MachineFixture.fresh.machine
        unblocked.sent(now: {
            Issue.record("clock read while not blocked")
            return 0
        })
        #expect(unblocked.writeBlockedSince == nil)
    }

    @Test func aDrainedSendResumesReadingOrHalfCloses() {
        let expected: [MachineFixture: Machine.WriteDrainedAction] = [
            .fresh: .resumeReading, .partialHead: .resumeReading, .readingBody: .resumeReading,
            .respondingLoop: .none, .closing: .halfClose, .draining: .none,
        ]
        for (fixture, action) in expected {
            var machine = fixture.blockedMachine
            #expect(machine.writeDrained(inputIsEmpty: true) == action, "\(fixture)")
            #expect(!machine.isWriteBlocked)
            #expect(machine.readSuspended == (action != .resumeReading), "\(fixture)")
        }
    }

    @Test func aFlushHalfClosesOnlyAClosingConnection() {
        for fixture in MachineFixture.allCases {
            #expect(fixture.machine.flushed() == (fixture == .closing ? .halfClose : .none), "\(fixture)")
            #expect(fixture.machine.mayFlush == (fixture != .respondingWorker && fixture != .closed), "\(fixture)")
        }
    }

    @Test func aFlushedClosingConnectionSendsFINAndDrainsUnlessThePeerLeft() {
        var machine = MachineFixture.closing.machine
        #expect(machine.closingFlushed() == .shutdownWrite)
        machine.sendBlocked(now: 1)
        _ = machine.writeDrained(inputIsEmpty: true)
        machine.halfClosed(now: 77)
        #expect(machine.state == .draining(remaining: 64, startedAt: 77))
        #expect(machine.interest == .init(read: true, write: false))

        var gone = MachineFixture.readingBody.machine
        gone.peerFinished()
        _ = gone.rejected()
        #expect(gone.closingFlushed() == .close)
    }

    private func unexpected() -> Bool {
        Issue.record("read although an earlier condition failed")
        return false
    }
}
