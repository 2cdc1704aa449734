import HTTPCore
import PermissionDomain

/// `GET /v1/audit` (SPEC §5): filters by user, app, service, action and time; keyset pages
/// by `after=<seq>&limit=`; `Accept: application/x-ndjson` streams every matching entry (or
/// the first `limit`, 1 to `maxPageLimit` like a page), one JSON object a line, page by page
/// with bounded memory. An `after` beyond the log's head is `409 beyond-log-head`, and one
/// sent with the hash of the entry read there (`afterHash`) that the log's entry does not have
/// is `409 log-diverged` (``LogPosition``): a client paging on from a cursor it kept would skip
/// entries after a restore. `app` selects the entries naming the app (an app key's own feed, which also holds
/// entries naming no app, is `GET /v1/events`; app keys do not read this log).
struct AuditController {
    static let ndjson = "application/x-ndjson"

    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/audit", access: .audit, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            var filter = try Self.filter(query)
            let afterHash = try LogPosition.hash(query.string("afterHash"), sentAs: "afterHash", position: filter.after)
            try LogPosition.require(filter.after, hash: afterHash, sentAs: "after", hashSentAs: "afterHash", permissions)
            if Self.wantsNDJSON(request.headers["Accept"]) {
                let filter = filter
                // `limit` has the same range as for a JSON page; without it the whole export streams.
                let total =
                    query.string("limit") == nil
                    ? nil : try query.limit(default: 1, maximum: request.configuration.maxPageLimit)
                return Self.stream(permissions, filter: filter, total: total, pageSize: request.configuration.streamPageSize)
            }
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            filter.limit = limit + 1
            let rows = try permissions.audit(query: filter)
            let items = Array(rows.prefix(limit))
            let next = rows.count > limit ? items.last?.seq : nil
            // Personal data, and the form depends on Accept (RFC 9110 §12.5.5).
            return try Responses.json(
                Wire.AuditPage(items: items.map(WireMapping.audit), nextAfter: next),
                headers: ["Cache-Control": "no-store", "Vary": "Accept"])
        }
    }

    /// The query's filters (not its limit).
    static func filter(_ query: QueryParameters) throws -> AuditQuery {
        var filter = AuditQuery()
        filter.user = try query.value("user") { try UserID($0) }
        filter.app = try query.value("app") { try AppID($0) }
        filter.service = try query.value("service") { try ServiceID($0) }
        filter.action = try query.string("action").map(Self.action)
        filter.since = try query.timestamp("since")
        filter.until = try query.timestamp("until")
        filter.after = try query.sequence("after") ?? 0
        return filter
    }

    /// An action filter: `area.verb` or `area.thing.verb` (`consent.session.created`), two or
    /// three lowerCamel words of letters, at most 64 characters (openapi.yaml); one that no
    /// entry could have is a malformed query, not an empty result.
    /// - Throws: `APIProblem` 400 `invalid-request` naming `action`.
    static func action(_ raw: String) throws -> AuditAction {
        let words = raw.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard raw.utf8.count <= 64, (2...3).contains(words.count), words.allSatisfy(isLowerCamelWord) else {
            throw APIProblem.invalidParameter("action", "must be area.verb, e.g. authorization.revoked")
        }
        return AuditAction(raw)
    }

    /// `[a-z][A-Za-z]*`.
    private static func isLowerCamelWord(_ bytes: Substring.UTF8View) -> Bool {
        guard let first = bytes.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
        return bytes.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
        }
    }

    /// Whether `Accept` lists NDJSON (RFC 9110 §12.5.1; any listed weight but zero).
    static func wantsNDJSON(_ accept: String?) -> Bool {
        guard let accept else { return false }
        for element in accept.split(separator: ",") {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == ndjson else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
        return false
    }

    /// The NDJSON export: pages of `pageSize` entries, each page written and flushed before
    /// the next is read, so memory stays bounded however long the log is.
    private static func stream(
        _ permissions: PermissionService, filter: AuditQuery, total: Int?, pageSize: Int
    )
        -> HTTPResponse
    {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": ndjson, "Cache-Control": "no-store", "Vary": "Accept"],
            body: .stream { writer in
                var query = filter
                var remaining = total ?? Int.max
                while remaining > 0 {
                    query.limit = min(pageSize, remaining)
                    let page = try permissions.audit(query: query)
                    guard let last = page.last else { break }
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(page.count * 256)
                    for entry in page { bytes.append(contentsOf: try Wire.WireEncoder.encodeLine(WireMapping.audit(entry))) }
                    try writer.write(bytes)
                    try writer.flush()
                    remaining -= page.count
                    query.after = last.seq
                    if page.count < query.limit { break }
                }
            })
    }
}
