import Testing

@testable import HTTPCore

/// The events that change the state, with fixed arguments, for the table of refusals.
enum MachineEvent: String, Codable, CaseIterable, Sendable {
    case bytesRead, peerFinished, headIncomplete, headParsed, bodyComplete, rejected, offloaded, workerFinished
    case responseQueued, streamStarted, streamEnded, sendBlocked, writeDrained, closingFlushed, halfClosed

    func apply(to machine: inout ConnectionStateMachine) {
        switch self {
        case .bytesRead: _ = machine.bytesRead(1)
        case .peerFinished: machine.peerFinished()
        case .headIncomplete: _ = machine.headIncomplete(buffered: 1, now: { 0 })
        case .headParsed: _ = machine.headParsed(framing: .none, expectContinue: false, inputIsEmpty: true, now: { 0 })
        case .bodyComplete: machine.bodyComplete()
        case .rejected: _ = machine.rejected()
        case .offloaded: machine.offloaded()
        case .workerFinished: _ = machine.workerFinished()
        case .responseQueued: machine.responseQueued(keepAlive: true)
        case .streamStarted: machine.streamStarted()
        case .streamEnded: _ = machine.streamEnded(completed: true, keepAlive: true, inputIsEmpty: true)
        case .sendBlocked: machine.sendBlocked(now: 0)
        case .writeDrained: _ = machine.writeDrained(inputIsEmpty: true)
        case .closingFlushed: _ = machine.closingFlushed()
        case .halfClosed: machine.halfClosed(now: 0)
        }
    }

    /// Where each event is accepted with no send blocked; everywhere else it traps.
    static let accepted: [MachineEvent: Set<MachineFixture>] = [
        .bytesRead: [.fresh, .partialHead, .readingBody, .draining],
        .peerFinished: [.fresh, .partialHead, .readingBody, .draining],
        .headIncomplete: [.fresh, .partialHead],
        .headParsed: [.fresh, .partialHead],
        .bodyComplete: [.readingBody],
        .rejected: [.fresh, .partialHead, .readingBody],
        .offloaded: [.respondingLoop],
        .workerFinished: [.respondingWorker],
        .responseQueued: [.respondingLoop],
        .streamStarted: [.respondingLoop],
        .streamEnded: [.respondingWorker],
        .sendBlocked: [.fresh, .partialHead, .readingBody, .respondingLoop, .closing, .draining],
        .writeDrained: [],
        .closingFlushed: [.closing],
        .halfClosed: [.closing],
    ]

    /// Every (state, event) pair the machine refuses.
    static var refused: [Refusal] {
        MachineFixture.allCases.flatMap { state in
            allCases.filter { !accepted[$0]!.contains(state) }.map { Refusal(state: state, event: $0) }
        }
    }

    /// One refused pair, as a test argument.
    struct Refusal: Codable, Sendable, CustomTestStringConvertible {
        var state: MachineFixture
        var event: MachineEvent
        var testDescription: String { "\(event) in \(state)" }
    }
}
