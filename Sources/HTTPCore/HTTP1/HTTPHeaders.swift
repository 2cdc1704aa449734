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
        // Native strings (small ones too) lend their bytes without a copy or an iterator.
        let contiguous = self.utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in String.asciiFoldedEqual(a, b) }
        }
        if let contiguous, let equal = contiguous { return equal }
        return self.utf8.elementsEqual(other.utf8) { String.asciiFoldedEqual($0, $1) }
    }

    /// Equal-length byte runs equal up to ASCII letter case.
    @inlinable
    static func asciiFoldedEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<a.count where !asciiFoldedEqual(a[index], b[index]) { return false }
        return true
    }

    /// Two bytes equal up to ASCII letter case: they differ at most in bit 0x20, and then only
    /// as the two cases of a letter.
    @inlinable
    static func asciiFoldedEqual(_ x: UInt8, _ y: UInt8) -> Bool {
        if x == y { return true }
        let folded = x | 0x20
        return folded == y | 0x20 && folded >= 0x61 && folded <= 0x7A
    }
}
