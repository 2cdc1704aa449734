import Logging
import Synchronization

extension HTTPConnection {
    /// The loop saw the socket readable: reads once, then parses and answers what came in.
    func onReadable() {
        assertOnLoop()
        switch machine.readable() {
        case .ignore: return
        case .suspendReading:
            updateInterest()  // level-triggered: do not spin on input we will not read now
            return
        case .read: break
        }
        let space = input.reserve(4096)
        guard let base = space.baseAddress else { return }
        let n: Int
        do {
            guard let read = try socket.read(into: base, count: min(space.count, 64 * 1024)) else { return }
            n = read
        } catch {
            environment.logger.debug("read failed", metadata: ["peer": .string(peer), "error": .string("\(error)")])
            closeNow()
            return
        }
        if n == 0 {
            machine.peerFinished()
            closeNow()
            return
        }
        idleSince.store(0, ordering: .relaxed)
        switch machine.bytesRead(n) {
        case .close: closeNow()
        case .discard: return
        case .process:
            input.commit(n)
            processInput()
        }
    }

    /// Parses and answers every complete request in the buffer, in order, then flushes once.
    func processInput() {
        assertOnLoop()
        loop: while true {
            // A request answered on a worker, or a stream begun inline, handed `output` to that
            // worker: the loop may not read it (even its count) until it comes back.
            if machine.isOffloaded { break loop }
            switch machine.nextInputStep(inputIsEmpty: input.isEmpty, unsentBytes: unsentOutputBytes) {
            case .stop: break loop
            case .flushFirst:
                flushOutput()
                if machine.isClosed { return }  // the send failed
                if machine.isWriteBlocked { break loop }  // `onWritable` goes on once they are out
            case .decodeBody: readBody()
            case .parseHead:
                let result = environment.parser.parseHead(input.readable)
                // Consumed, so the head moves into the request instead of being copied (a copy
                // retains and releases every string and array in it).
                switch consume result {
                case .needMore:
                    if machine.headIncomplete(buffered: input.count, now: MonotonicClock.now) == .rejectTooLarge {
                        reject(.requestHeaderFieldsTooLarge, detail: HTTPParseError.headerFieldsTooLarge.detail)
                    }
                    break loop
                case .failure(let error):
                    reject(error.status, detail: error.detail)
                    break loop
                case .complete(let head, let consumed):
                    input.consume(consumed)
                    beginRequest(head)
                }
            }
        }
        if machine.isClosed { return }
        if machine.isOffloaded {
            updateDeadline()  // reads the machine, not `output`
            return
        }
        if !machine.isWriteBlocked && machine.mayFlush {
            if loop.groupsResponses && unsentOutputBytes > 0 {
                loop.flushAfterBatch(self)  // sent with the batch's other responses
                return
            }
            flushOutput()
        }
        updateDeadline()
    }

    /// The end of `processInput` for a connection whose output waited for the batch to end.
    func flushAfterBatch() {
        assertOnLoop()
        if machine.isClosed { return }
        if !machine.isWriteBlocked && machine.mayFlush { flushOutput() }
        updateDeadline()
    }

    private func beginRequest(_ head: consuming HTTPRequestHead) {
        let action = machine.headParsed(
            framing: head.framing, expectContinue: head.expectContinue, inputIsEmpty: input.isEmpty,
            now: MonotonicClock.now)
        switch action {
        case .respond:
            respond(to: HTTPRequest(head: head))
        case .rejectTooLarge:
            reject(.contentTooLarge, detail: HTTPParseError.contentTooLarge.detail, head: head)
        case .readBody(let sendContinue):
            if sendContinue { HTTPResponseWriter.appendContinue(to: &output) }
            bodyDecoder = HTTPBodyDecoder(framing: head.framing, limits: environment.configuration.limits)
            bodyHead = head
            body = []
            if !input.isEmpty { readBody() }
        }
    }

    private func readBody() {
        guard var decoder = bodyDecoder, let head = bodyHead else { return }
        do {
            let (consumed, complete) = try decoder.decode(input.readable, into: &body)
            input.consume(consumed)
            bodyDecoder = decoder
            if complete {
                let request = HTTPRequest(head: head, body: body)
                bodyHead = nil
                bodyDecoder = nil
                body = []
                machine.bodyComplete()
                respond(to: request)
            }
        } catch {
            reject(error.status, detail: error.detail, head: head)
        }
    }
}
