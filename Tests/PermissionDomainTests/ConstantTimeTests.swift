import Foundation
import PermissionDomain
import Testing

/// `ConstantTime.equal`: byte equality whose work depends only on the lengths, the one
/// comparison used for secrets and whatever contains one (headers, stored hashes).
@Suite struct ConstantTimeTests {
    @Test(
        arguments: [
            ([], [], true), ([1, 2, 3], [1, 2, 3], true), ([1, 2, 3], [1, 2, 4], false), ([1, 2, 3], [9, 2, 3], false),
            ([1, 2, 3], [1, 2], false), ([1, 2], [1, 2, 3], false), ([], [0], false), ([0], [], false),
            ([0, 0], [0], false),
        ] as [([UInt8], [UInt8], Bool)])
    func equalOnlyForTheSameBytes(lhs: [UInt8], rhs: [UInt8], equal: Bool) {
        #expect(ConstantTime.equal(lhs, rhs) == equal)
        #expect(ConstantTime.equal(rhs, lhs) == equal)
        // The same through collections without contiguous storage (the iterator path).
        #expect(ConstantTime.equal(lhs.lazy.map { $0 }, rhs.lazy.map { $0 }) == equal)
        #expect(ConstantTime.equal(lhs, rhs.lazy.map { $0 }) == equal)
    }

    @Test func comparesBytesNotCanonicalEquivalence() {
        // "K" and KELVIN SIGN are equal as Strings (canonical equivalence), not as bytes.
        #expect("K" == "\u{212A}")
        #expect(!ConstantTime.equal("Bearer pk_K".utf8, "Bearer pk_\u{212A}".utf8))
        #expect(ConstantTime.equal("Bearer pk_K".utf8, "Bearer pk_K".utf8))
    }

    @Test func apiKeysAreEqualOnlyWithTheSameHash() throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        func key(_ hash: [UInt8], name: String = "ci") throws -> APIKey {
            try APIKey(
                id: KeyID(trusted: "0123456789abcdef"), role: .admin, app: nil, name: name, secretHash: hash, createdAt: created)
        }
        let hash = [UInt8](repeating: 7, count: 32)
        #expect(try key(hash) == key(hash))
        #expect(try key(hash) != key(Array(hash.dropLast()) + [8]))
        #expect(try key(hash) != key([8] + hash.dropFirst()))
        #expect(try key(hash) != key(hash, name: "other"))
        #expect(try Set([key(hash), key(hash)]).count == 1)
    }

    /// Every byte of both sides is read whether they differ at the first byte, the last, or
    /// not at all, and when the lengths differ: no early exit tells where a difference is.
    @Test(
        arguments: [
            ([UInt8](repeating: 7, count: 32), [UInt8](repeating: 7, count: 32)),
            ([0] + [UInt8](repeating: 7, count: 31), [UInt8](repeating: 7, count: 32)),
            ([UInt8](repeating: 7, count: 31) + [0], [UInt8](repeating: 7, count: 32)),
            ([UInt8](repeating: 7, count: 16), [UInt8](repeating: 7, count: 32)),
            ([1], [UInt8](repeating: 7, count: 32)),
        ] as [([UInt8], [UInt8])])
    func readsEveryByteOfBothSides(lhs: [UInt8], rhs: [UInt8]) {
        let left = CountingBytes(lhs), right = CountingBytes(rhs)
        _ = ConstantTime.equal(left, right)
        #expect(left.reads.count == lhs.count)
        #expect(right.reads.count == rhs.count)
    }
}

/// Bytes that count how many of them were read, through iteration or subscript.
private struct CountingBytes: Collection {
    final class Reads: @unchecked Sendable { var count = 0 }
    let bytes: [UInt8]
    let reads = Reads()

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    func index(after index: Int) -> Int { index + 1 }
    subscript(position: Int) -> UInt8 {
        reads.count += 1
        return bytes[position]
    }
}
