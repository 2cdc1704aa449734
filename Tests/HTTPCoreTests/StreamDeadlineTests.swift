import Dispatch
import Foundation
import Synchronization
import TestThreads
import Testing

@testable import HTTPCore

/// A streamed body bounded in time (`HTTPBodyWriter.limitDuration(to:)`), over real sockets: a
/// client that reads slowly but steadily, which the write timeout never catches, is cut when
/// the bound passes, as is a stream whose producer is slow; a stream done in time ends normally.
@Suite struct StreamDeadlineTests {
    /// What the stream closure ended with: nil while it runs, then the error it threw, or
    /// "completed".
    final class Outcome: Sendable {
        let ended = Mutex<String?>(nil)
        let thrown = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)

        func run(_ body: () throws -> Void) throws {
            do {
                try body()
                ended.withLock { $0 = "completed" }
                done.signal()
            } catch {
                thrown.withLock { $0 = error }
                ended.withLock { $0 = "threw" }
                done.signal()
                throw error
            }
        }

        /// The error thrown, once the closure has ended (10 s at most).
        func error() throws -> (any Error)? {
            guard done.wait(timeout: .now() + 10) == .success else { throw TestFailure("the stream did not end") }
            return thrown.withLock { $0 }
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads until the server ends the connection (EOF or reset), `pause` between reads of at
    /// most `bytes`; returns what came and how long it took.
    static func readSlowly(_ client: RawClient, bytes: Int, pause: Double) throws -> (received: [UInt8], took: Duration) {
        let started = ContinuousClock.now
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: bytes)
        while ContinuousClock.now - started < .seconds(20) {
            let count: Int?
            do {
                count = try chunk.withUnsafeMutableBytes { try client.socket.read(into: $0.baseAddress!, count: $0.count) }
            } catch {
                break  // reset: the server aborted the connection
            }
            guard let count else { throw TestFailure("the server neither sent nor ended within the read timeout") }
            if count == 0 { break }
            received += chunk[0..<count]
            Thread.sleep(forTimeInterval: pause)
        }
        return (received, ContinuousClock.now - started)
    }

    /// The client keeps reading, 4 KiB every 5 ms (at most 0.8 MB/s, never a pause near the 5 s
    /// write timeout), a body far larger than it can read in the 600 ms the stream was given,
    /// in writes of 16 MiB, each of which blocks for many seconds (what the kernel does not
    /// buffer, 4 MiB at most, at that rate): the blocked write throws when the bound passes, not
    /// at the end of its flush, and the connection ends, the body without its last chunk.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aClientThatReadsSlowlyButSteadilyIsCutWhenTheBoundPasses() throws {
        let outcome = Outcome()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 20)
        let live = try LiveServer(adjust: { $0.writeTimeout = .seconds(5) }) { router in
            router.get("/slow") { _, _ in
                HTTPResponse(
                    body: .stream { writer in
                        writer.limitDuration(to: .milliseconds(600))
                        try outcome.run {
                            for _ in 0..<64 { try writer.write(chunk) }  // 1 GiB if it were read
                        }
                    })
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.socket.setReceiveBufferSize(4096)
        let sent = ContinuousClock.now  // before the request: the server's bound starts after it
        try client.send(rawGet("/slow"))
        let (received, _) = try Self.readSlowly(client, bytes: 4096, pause: 0.005)
        let took = ContinuousClock.now - sent
        let error = try outcome.error()
        #expect(
            error as? StreamDeadlineExceeded == StreamDeadlineExceeded(limit: .milliseconds(600)), "\(String(describing: error))")
        #expect(took >= .milliseconds(600) && took < .seconds(3), "ended after \(took)")
        #expect(String(decoding: received.prefix(15), as: UTF8.self) == "HTTP/1.1 200 OK")
        #expect(received.count < 64 * 1024 * 1024, "far short of the body")
        #expect(!received.suffix(5).elementsEqual(Array("0\r\n\r\n".utf8)), "no last chunk")
    }

    /// A producer that takes longer than the bound (a slow database, say) is cut at its next
    /// write, however fast the client reads; what it wrote before arrived.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aSlowProducerIsCutAtItsNextWrite() throws {
        let outcome = Outcome()
        let live = try LiveServer { router in
            router.get("/late") { _, _ in
                HTTPResponse(
                    body: .stream { writer in
                        writer.limitDuration(to: .seconds(1))
                        try outcome.run {
                            try writer.write(Array("early".utf8))
                            try writer.flush()
                            Thread.sleep(forTimeInterval: 1.5)
                            try writer.write(Array("late".utf8))
                        }
                    })
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/late"))
        let (received, _) = try Self.readSlowly(client, bytes: 65536, pause: 0)
        let error = try outcome.error()
        #expect(
            error as? StreamDeadlineExceeded == StreamDeadlineExceeded(limit: .seconds(1)), "\(String(describing: error))")
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.contains("\r\n5\r\nearly\r\n") && !text.contains("late") && !text.hasSuffix("0\r\n\r\n"), "\(text)")
    }

    /// A closure that catches its writer's deadline error and returns has still not sent its
    /// body whole: the body ends unterminated, never with a last chunk that makes it look
    /// complete.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aClosureThatSwallowsTheDeadlineStillEndsUnterminated() throws {
        let live = try LiveServer { router in
            router.get("/swallow") { _, _ in
                HTTPResponse(
                    body: .stream { writer in
                        try writer.write(Array("early".utf8))
                        try writer.flush()
                        writer.limitDuration(to: .zero)
                        do {
                            try writer.write(Array("late".utf8))
                        } catch {
                            // swallowed: the closure returns as if it were done
                        }
                    })
            }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/swallow"))
        let (received, _) = try Self.readSlowly(client, bytes: 65536, pause: 0)
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.contains("\r\n5\r\nearly\r\n") && !text.contains("late"), "\(text)")
        #expect(!text.hasSuffix("0\r\n\r\n"), "no last chunk: \(text)")
    }

    /// A duration as the engine counts it: whole nanoseconds, zero for a negative one, and
    /// `UInt64.max` for one too long to count (`.seconds(Int64.max)` as "no bound" must not wrap
    /// to a deadline in the past).
    @Test func durationsSaturateInsteadOfWrapping() {
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.seconds(-1).nanoseconds == 0)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(18_446_744_074).nanoseconds == .max, "just past UInt64.max nanoseconds")
        #expect(Duration.seconds(18_446_744_073).nanoseconds == 18_446_744_073_000_000_000)
    }

    /// A stream done within its bound ends as any other, its last chunk sent, and the
    /// connection serves the next request; a bound too long to count (which would wrap to one
    /// in the past) is as good as none.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aStreamDoneInTimeEndsNormally() throws {
        let outcome = Outcome()
        let live = try LiveServer { router in
            router.get("/quick") { _, _ in
                HTTPResponse(
                    body: .stream { writer in
                        writer.limitDuration(to: .seconds(5))
                        writer.limitDuration(to: .seconds(Int64.max))  // replaces it: as good as none
                        try outcome.run {
                            for part in ["a", "b", "c"] { try writer.write(Array(part.utf8)) }
                        }
                    })
            }
        }
        defer { live.stop() }
        let client = try live.client()
        for _ in 0..<2 {
            try client.send(rawGet("/quick"))
            #expect(try client.readResponse().text == "abc")
        }
        #expect(try outcome.error() == nil)
    }
}
