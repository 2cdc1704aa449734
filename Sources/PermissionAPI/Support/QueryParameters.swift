import Foundation
import HTTPCore
import PermissionDomain
import PermissionWire

/// The query of a request, decoded once, with typed accessors that answer 400
/// `invalid-request` naming the parameter when a value is malformed.
struct QueryParameters {
    private let items: [(name: String, value: String)]

    /// - Throws: `HTTPError` 400 when the query has an invalid percent-encoding.
    init(_ request: HTTPRequest) throws {
        items = try request.queryItems()
    }

    /// The first value of `name`, or nil.
    func string(_ name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// `name` parsed by `make`, or nil when absent.
    /// - Throws: `APIProblem` 400 when `make` throws.
    func value<T>(_ name: String, _ make: (String) throws -> T) throws -> T? {
        guard let raw = string(name) else { return nil }
        do {
            return try make(raw)
        } catch {
            throw APIProblem.invalidParameter(name, Self.reason(error))
        }
    }

    /// `limit`: 1 to `maximum`, `fallback` when absent.
    func limit(default fallback: Int, maximum: Int) throws -> Int {
        guard let raw = string("limit") else { return fallback }
        guard let value = Int(raw), value >= 1, value <= maximum else {
            throw APIProblem.invalidParameter("limit", "must be an integer from 1 to \(maximum)")
        }
        return value
    }

    /// A non-negative integer, e.g. an audit `after` seq.
    func sequence(_ name: String) throws -> Int64? {
        guard let raw = string(name) else { return nil }
        guard let value = Int64(raw), value >= 0, raw.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw APIProblem.invalidParameter(name, "must be a non-negative integer")
        }
        return value
    }

    /// An RFC 3339 timestamp.
    func timestamp(_ name: String) throws -> Date? {
        guard let raw = string(name) else { return nil }
        guard let date = Timestamp.parse(raw) else {
            throw APIProblem.invalidParameter(name, "must be an RFC 3339 timestamp such as 2026-11-22T10:00:00.000Z")
        }
        return date
    }

    /// One of the raw values of `T`.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws -> T?
    where T.RawValue == String {
        guard let raw = string(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw APIProblem.invalidParameter(
                name, "must be one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    private static func reason(_ error: any Error) -> String {
        if case .invalidArgument(_, let why)? = error as? PermissionError { return why }
        return "is malformed"
    }
}
