package import Foundation

/// When and how long to wait before trying a call again: exponential backoff with jitter
/// ("full jitter" between half and all of the capped delay).
///
/// A call is retried only where that is safe (RFC 9110 §9.2.2): a connection that could not be
/// established (nothing reached the server) for any method; and, for a call that answers the
/// same when sent again (an unconditional `GET` or `PUT`: not a `DELETE`, whose repeat finds
/// nothing to delete, nor a `PUT` with `If-Match`, whose repeat finds its precondition spent),
/// a connection lost before the answer and the statuses `502`, `503` and `504`, after some of
/// which the first attempt may have taken effect. A `POST` that may have reached the
/// server is retried only after an answer that says nothing was done (a `503` or `429` with
/// `Retry-After`), as any call is; a timeout is never retried (the timeout is the caller's budget
/// for one attempt); the caller then gets that failure, and may read the state to learn the
/// outcome. A retried
/// answer's `Retry-After` is honoured: the next attempt waits at least that long, and one that
/// asks for longer than `maxDelay` is not retried (the caller gets the answer at once).
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; `1` disables retries.
    public var maxAttempts: Int
    /// The delay before the first retry; it doubles for each further one.
    public var baseDelay: Duration
    /// The longest delay between two attempts.
    public var maxDelay: Duration

    /// - Parameters:
    ///   - maxAttempts: attempts in all (default 3).
    ///   - baseDelay: the first delay (default 100 ms).
    ///   - maxDelay: the cap on any delay (default 2 s).
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(2)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The change feed's default (`Configuration.eventsRetry`): 20 attempts in a row, from
    /// 200 ms doubling to at most 10 s apart (each between half and all of that), so that a feed
    /// outlives a server's restart and gives up after about one to two minutes without one.
    public static let feed = RetryPolicy(maxAttempts: 20, baseDelay: .milliseconds(200), maxDelay: .seconds(10))

    /// The delay before attempt `attempt + 1`, after `attempt` failed ones (1-based).
    /// - Parameter attempt: how many attempts were made so far.
    /// - Returns: a delay between half and all of `min(maxDelay, baseDelay × 2^(attempt-1))`.
    public func delay(after attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let capped = min(maxDelay, baseDelay * (1 << exponent))
        let fraction = Double.random(in: 0.5...1.0)
        return capped * fraction
    }

    /// The longest `Retry-After` honoured; a server asking for more is retried after this.
    static let maxRetryAfter: Duration = .seconds(60)

    /// The delay before attempt `attempt + 1` after an answer that asked for `retryAfter`
    /// (RFC 9110 §10.2.3: seconds, or an HTTP-date), capped at `maxRetryAfter`, and never
    /// sooner than `delay(after:)`.
    /// - Parameters:
    ///   - attempt: how many attempts were made so far.
    ///   - retryAfter: the field's value, if the answer had one.
    ///   - now: the time a date is measured from.
    package func delay(after attempt: Int, retryAfter: String?, now: Date) -> Duration {
        let own = delay(after: attempt)
        guard let asked = retryAfter.flatMap({ Self.retryAfterDelay($0, now: now) }) else { return own }
        return max(own, min(asked, Self.maxRetryAfter))
    }

    /// How long a `Retry-After` value asks to wait: delay-seconds, or an HTTP-date in any of the
    /// three forms a recipient must read (RFC 9110 §5.6.7); a date in the past is no wait.
    /// - Returns: `nil` for a value that is neither.
    package static func retryAfterDelay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return .seconds(Int64(text.prefix(12)) ?? 0)
        }
        // asctime() pads a one-digit day with a space: "Sun Nov  6 08:49:37 1994".
        let date = text.split(separator: " ").joined(separator: " ")
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            // Strictly this form: the formatter alone takes a date with its zone left out.
            if let instant = formatter.date(from: date), formatter.string(from: instant) == date {
                return .milliseconds(max(0, Int64((instant.timeIntervalSince(now) * 1000).rounded(.up))))
            }
        }
        return nil
    }

    /// IMF-fixdate, the obsolete RFC 850 form, and ANSI C's asctime() form.
    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy",
    ]

    /// libcurl codes after which nothing reached the server: resolving or connecting failed.
    static let notSentCodes: Set<Int> = [5, 6, 7]
    /// libcurl codes of a connection lost mid-call: empty reply, send or receive failure,
    /// a body shorter than announced.
    static let lostConnectionCodes: Set<Int> = [18, 52, 55, 56]
    /// libcurl codes that another attempt meets again, whatever the server does meanwhile: a
    /// URL libcurl refuses, and a TLS peer or local TLS setup it refuses (the server's
    /// certificate does not verify, a pinned key differs, a CA, CRL or client certificate file
    /// is bad, no shared cipher). A handshake cut short (35) is not among them: a server
    /// restarting causes it.
    static let permanentCodes: Set<Int> = [1, 3, 58, 59, 60, 77, 82, 83, 90, 91, 98]
    /// Statuses that say "try again" from a proxy or an overloaded server.
    static let retryableStatuses: Set<Int> = [502, 503, 504]

    /// Whether a failed attempt may be retried.
    /// - Parameters:
    ///   - code: the libcurl code of the failure.
    ///   - repeatsSafely: whether sending the call again answers what the first would have
    ///     (``HTTPCall/repeatsSafely``).
    func mayRetry(transportCode code: Int, repeatsSafely: Bool) -> Bool {
        Self.notSentCodes.contains(code) || (repeatsSafely && Self.lostConnectionCodes.contains(code))
    }

    /// Whether an answer with `status` may be retried: `502`, `503` and `504` for a call that
    /// answers the same when sent again. Not for the other idempotent ones (a `DELETE`, a `PUT`
    /// with `If-Match`): a proxy's `502` or `504` does not know what the server did, and the
    /// server's own `503` without `Retry-After` says that a commit's outcome is unknown (its
    /// connection to PostgreSQL was lost during it), when the first attempt may have taken
    /// effect. Any call, a `POST` too, after a `503` or `429` with `Retry-After`: the server's
    /// word (openapi.yaml) that nothing was done (a busy database, a revision not shown yet,
    /// a connection beyond the address's share, an app's pending prompts at their limit).
    func mayRetry(status: Int, retryAfter: Bool, repeatsSafely: Bool) -> Bool {
        (repeatsSafely && Self.retryableStatuses.contains(status))
            || (retryAfter && Self.nothingDoneStatuses.contains(status))
    }

    /// Statuses that, with `Retry-After`, say that nothing was done.
    static let nothingDoneStatuses: Set<Int> = [429, 503]
}
