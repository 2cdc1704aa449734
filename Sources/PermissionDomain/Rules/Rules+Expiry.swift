public import Foundation

extension Rules {
    /// The end of an expiring grant (SPEC §11): `until`, truncated to the millisecond, when it
    /// lies after `now` and at most `maxDuration` seconds after it; nil when `until` is nil.
    /// - Parameters:
    ///   - until: the requested end, nil for a grant without an end.
    ///   - now: the time of the change.
    ///   - maxDuration: the horizon (`--max-grant-duration`), seconds.
    /// - Throws: `invalidCombination` (field `until`) for a time not after `now` or beyond the
    ///   horizon.
    public static func expiry(until: Date?, now: Date, maxDuration: TimeInterval) throws(PermissionError) -> Date? {
        guard let until else { return nil }
        let end = until.truncatedToMilliseconds
        guard end > now else {
            throw .invalidCombination(field: "until", why: "must be in the future")
        }
        guard end.timeIntervalSince(now) <= maxDuration else {
            throw .invalidCombination(
                field: "until", why: "must be at most \(Int(maxDuration)) seconds from now (the maximum grant duration)")
        }
        return end
    }

    /// The record after its grant lapses at its `expiresAt` (an Allow Once grant's TTL or an
    /// expiring grant's `until`): `notDetermined` (`expired`), declined levels kept; nil when
    /// the record is not an authorized grant with an end.
    public static func lapse(stored: StoredAuthorization) -> StoredAuthorization? {
        guard stored.status == .authorized, stored.expiresAt != nil else { return nil }
        var next = cleared(stored, reason: .expired)
        next.declinedLevels = stored.declinedLevels
        return next
    }
}
