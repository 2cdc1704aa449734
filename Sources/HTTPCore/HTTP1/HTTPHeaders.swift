/// An ordered list of header fields with case-insensitive lookup by name
/// (RFC 9110 §5.1: field names are case-insensitive; order of same-named fields matters).
public struct HTTPHeaders: Sendable, Equatable {
    /// The fields in the order they were received or added.
    public private(set) var fields: [(name: String, value: String)]

    public init() { fields = [] }

    /// An empty list with room for `minimumCapacity` fields, as the parser builds it.
    package init(minimumCapacity: Int) {
        fields = []
        fields.reserveCapacity(minimumCapacity)
    }

    public init(_ fields: [(String, String)]) {
        // Room for the fields middleware adds on the way out (`X-Request-Id`), so that adding
        // them does not move the array.
        var copied: [(name: String, value: String)] = []
        copied.reserveCapacity(fields.count + 2)
        for (name, value) in fields { copied.append((name: name, value: value)) }
        self.fields = copied
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where field.name.equalsIgnoringASCIICase(name) { return field.value }
        return nil
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension HTTPHeaders: Sequence {
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names and tokens need (no locale, no Unicode folding).
    @inlinable
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        // Lengths first (constant time for native strings): most field names differ in length.
        guard self.utf8.count == other.utf8.count else { return false }
        var a = self.utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                let lx = (x >= 0x41 && x <= 0x5A) ? x | 0x20 : x
                let ly = (y >= 0x41 && y <= 0x5A) ? y | 0x20 : y
                if lx != ly { return false }
            default: return false
            }
        }
    }
}
