public import HTTPCore
public import PermissionDomain
import PermissionWire

/// Everything the API layer needs to know, as one Sendable value built by `main` or a test
/// (STYLE convention 9). Every field has a default.
public struct APIConfiguration: Sendable {
    /// Largest request body accepted, in bytes; larger → 413. Default 65 536.
    public var maxBodyBytes: Int = 65_536
    /// Page size of listings without `limit`. Default 100.
    public var defaultPageLimit: Int = 100
    /// Largest `limit` accepted; larger → 400. Default 1000.
    public var maxPageLimit: Int = 1000
    /// Period of the SSE comment lines that keep idle event streams open. Default 15 s.
    public var eventsHeartbeat: Duration = .seconds(15)
    /// Period of the sweeper that writes time-driven changes (expired prompts, lapsed once
    /// grants). Default 250 ms, so that they are on the feed within about a second.
    public var sweepInterval: Duration = .milliseconds(250)
    /// Most concurrent `GET /v1/events` streams; beyond it, 503. Each holds a worker thread.
    /// Default 32.
    public var maxEventStreams: Int = 32
    /// Most concurrent `GET /v1/events` streams of one key, and `GET /consent/events` streams of
    /// one consent session; beyond it, 429 with `Retry-After` (RFC 6585 §4), so that one key
    /// cannot take every slot. Default 4.
    public var maxEventStreamsPerKey: Int = 4
    /// Most concurrent `GET /consent/events` streams (the consent pages' live updates), counted
    /// apart from `maxEventStreams` so that users with the pages open never take the change
    /// feed's slots from the backends; beyond it, 503 (the pages work on without live updates).
    /// Each holds a worker thread. Default 64.
    public var maxConsentEventStreams: Int = 64
    /// Time one user's export (`GET /v1/users/{user}/export`, the consent pages' download) may
    /// take from its snapshot's opening to its last byte; past it the body ends unterminated and
    /// the snapshot is given back, however steadily the client reads. Default 600 s.
    public var exportTimeout: Duration = .seconds(600)
    /// Entries written per page of an NDJSON audit export or an event stream. Default 500.
    public var streamPageSize: Int = 500
    /// Failed authentications (a presented key that is unknown, revoked or malformed) one
    /// remote address may make at once; beyond it, 429 with `Retry-After` (RFC 6585 §4) instead
    /// of 401 until the allowance refills. Default 10.
    public var authFailureBurst: Int = 10
    /// How many failed authentications per second come back to an address's allowance. Default 1.
    public var authFailureRefillPerSecond: Double = 1
    /// How the HTTP engine renders the answers it gives itself before routing
    /// (`HTTPServerConfiguration.refusalRenderer`): the problem types of openapi.yaml
    /// (`invalid-request`, `request-timeout`, `payload-too-large`, `uri-too-long`,
    /// `expectation-failed`, `too-many-requests`, `header-fields-too-large`, `not-implemented`,
    /// `version-not-supported`) and `X-Request-Id`, the caller's when the head was read and its
    /// id is sane, as every other response.
    public static let refusalRenderer: @Sendable (HTTPRefusal) -> HTTPResponse = EngineRefusals.response
    /// Whether the consent session cookie is `Secure` (sent over HTTPS only). Default true;
    /// false only for a deployment served over plain HTTP.
    public var consentCookieSecure = true
    /// The base of consent links (`https://host[:port][/path]`, no trailing "/"); empty makes
    /// them relative (`/consent/start?token=...`). Default empty.
    public var publicURL = ""
    /// The prompt, once and consent session TTLs.
    public var service: PermissionService.Configuration = PermissionService.Configuration()

    public init() {}
}
