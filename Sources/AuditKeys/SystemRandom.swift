#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes from the system's generator, each draw in one call (`getentropy(3)`: one `getrandom(2)`
/// on Linux). swift-crypto's `SymmetricKey(size:)` and `AES.GCM.Nonce()` draw 8 bytes a system
/// call, so a new user's audit key, its pseudonym and two nonces took ten calls on every first
/// write about a user; the keyring draws what a seal needs at once instead.
package enum SystemRandom {
    /// The most one draw takes (`getentropy`'s limit).
    package static let maxCount = 256

    /// `count` random bytes (0...``maxCount``).
    package static func bytes(_ count: Int) -> [UInt8] {
        precondition((0...maxCount).contains(count), "a draw takes 0...\(maxCount) bytes")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let result = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        // getentropy fails only for a bad buffer or length, or when the kernel has no generator.
        precondition(result == 0, "getentropy failed (errno \(errno))")
        return bytes
    }
}
