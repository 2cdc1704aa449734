#if canImport(Glibc)
internal import Glibc
#endif

/// Connections open per remote address, for `HTTPServerConfiguration.maxConnectionsPerAddress`:
/// the server admits a connection while its address holds fewer than `share`, answers the
/// next ones `429` (each then lives until its short drain ends), and beyond
/// `refusalsInFlight` such answers at once closes new ones without a word, so that refusing
/// cannot itself take the server's connections. Owned by the server, under its lock.
struct AddressShares {
    /// What happens to a new connection.
    enum Admission: Equatable {
        /// Served; it holds one of its address's `share` until it closes.
        case admitted
        /// Answered `429` and closed; it holds one of the address's refusals in flight.
        case refused
        /// Closed at once: the address already has `refusalsInFlight` refusals open.
        case dropped
    }

    /// Refusals one address may have open at once (each drains for up to
    /// `HTTPServerConfiguration.drainTimeout`).
    static let refusalsInFlight = 16

    /// Connections one address may hold; 0 for no limit.
    let share: Int
    private var open: [String: (admitted: Int, refused: Int)] = [:]

    /// - Parameter share: `maxConnectionsPerAddress`; 0 (or less) admits everything.
    init(share: Int) {
        self.share = share
    }

    /// Whose share a connection from `address` (numeric, as ``SocketAddress/host(of:)`` gives
    /// it) counts against: the address's own, an IPv4-mapped IPv6 address's IPv4 address (a
    /// dual-stack listener's view of an IPv4 client). An IPv6 address counts in full: the
    /// backends calling this service often share one /64 (a cloud subnet, a cluster's pods).
    static func holder(of address: String) -> String {
        let prefix = "::ffff:"
        // Checked without an allocation for any other address (this runs on every accept).
        guard address.utf8.first == UInt8(ascii: ":"), address.utf8.count > prefix.utf8.count,
            address.lowercased().hasPrefix(prefix)
        else { return address }
        let rest = address.dropFirst(prefix.count)
        var bytes = in_addr()
        guard inet_pton(AF_INET, String(rest), &bytes) == 1 else { return address }
        return String(rest)
    }

    /// Decides about a new connection from `address` and counts it.
    mutating func admit(_ address: String) -> Admission {
        let address = Self.holder(of: address)
        var counts = open[address] ?? (0, 0)
        let admission: Admission
        if share <= 0 || counts.admitted < share {
            counts.admitted += 1
            admission = .admitted
        } else if counts.refused < Self.refusalsInFlight {
            counts.refused += 1
            admission = .refused
        } else {
            return .dropped
        }
        open[address] = counts
        return admission
    }

    /// A connection `admit` counted has closed.
    /// - Parameters:
    ///   - address: its remote address.
    ///   - admission: what `admit` returned for it (`.dropped` was never counted).
    mutating func release(_ address: String, _ admission: Admission) {
        let address = Self.holder(of: address)
        guard admission != .dropped, var counts = open[address] else { return }
        if admission == .admitted {
            precondition(counts.admitted > 0, "an address released more connections than it was admitted")
            counts.admitted -= 1
        } else {
            precondition(counts.refused > 0, "an address released more refusals than it was given")
            counts.refused -= 1
        }
        open[address] = counts.admitted == 0 && counts.refused == 0 ? nil : counts
    }

    /// Connections `address` holds now (admitted, not refusals).
    func admitted(_ address: String) -> Int { open[Self.holder(of: address)]?.admitted ?? 0 }

    /// Addresses with a connection or a refusal open.
    var addresses: Int { open.count }
}
