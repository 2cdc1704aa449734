import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files read with the reason of a failure as the one phrase an operator needs ("No such file
/// or directory", "Is a directory"), not Foundation's `NSError` dump with its user info.
enum PlainFile {
    /// Why a file cannot be read: `strerror(3)` of the failing call.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The whole file at `path`, decoded as UTF-8.
    static func text(at path: String) throws(Failure) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: String(cString: strerror(errno)))
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(description: "not UTF-8 text")
        }
        return text
    }
}
