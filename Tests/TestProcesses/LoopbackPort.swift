import Glibc

/// Loopback TCP ports for the programs the tests start on a port of their choosing (PostgreSQL
/// over TCP, HAProxy).
package enum LoopbackPort {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A loopback TCP port nothing listens on now: bound with port 0, read, closed. Another
    /// process may take it before the caller's program binds it; the caller's start fails then.
    package static func free() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socket, socketAddress, length) == 0 && getsockname(socket, socketAddress, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
