internal import Ownership

/// The hand-off of ``PermissionClient/events(after:afterHash:filter:)`` from the thread that
/// reads the feed to the task that iterates it: at most `limit` entries wait between them. The
/// thread waits for room before it hands the next one over, so it stops reading the socket,
/// and the server's stream waits too (and drops the connection after its write timeout, which
/// the feed resumes from its position), instead of a consumer slower than the network making
/// the buffer grow without bound (a feed from the start of a long log).
/// `Sendable` as checked by the compiler: the counts live in a ``Guarded`` cell.
final class FeedHandoff: Sendable {
    /// The entries that may wait at once.
    static let defaultLimit = 256

    let limit: Int

    private struct State {
        var waiting = 0
        var mostWaiting = 0
        var closed = false
    }

    private let state = Guarded(State())

    init(limit: Int = defaultLimit) {
        precondition(limit > 0, "a feed hand-off holds at least one entry")
        self.limit = limit
    }

    /// On the reading thread, before it hands an entry over: waits while `limit` entries wait,
    /// then counts this one. False once the consumer went away (nothing is to be handed over).
    func reserve() -> Bool {
        state.withLock { access in
            while access.state.waiting >= limit, !access.state.closed { access.wait() }
            guard !access.state.closed else { return false }
            access.state.waiting += 1
            access.state.mostWaiting = max(access.state.mostWaiting, access.state.waiting)
            return true
        }
    }

    /// On the consuming side, once it took an entry.
    func took() {
        state.withLock { access in
            access.state.waiting -= 1
            access.signal()
        }
    }

    /// The consumer went away: a waiting `reserve` returns false.
    func close() {
        state.withLock { access in
            access.state.closed = true
            access.broadcast()
        }
    }

    /// The most entries that waited at once so far (tests).
    var mostWaiting: Int { state.withLock { $0.state.mostWaiting } }
}
