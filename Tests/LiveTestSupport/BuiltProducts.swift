package import Foundation

/// Where the live tests find the package's built executables.
package enum BuiltProducts {
    /// The products directory: where this test binary and the package's executables are
    /// (`.build/debug`; on Linux the test bundle is an executable there).
    package static var directory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The path of a built executable of the package, e.g. `permctl`.
    package static func binary(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The `permission-server` binary: `PERMISSION_SERVER_BINARY` when set, else the one in the
    /// products directory that holds this test bundle.
    package static var serverBinary: String {
        if let path = ProcessInfo.processInfo.environment["PERMISSION_SERVER_BINARY"], !path.isEmpty { return path }
        var candidateDirectory = directory
        // On Darwin the test bundle's executable sits a few levels below the products directory.
        for _ in 0..<4 {
            let candidate = candidateDirectory.appendingPathComponent("permission-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            candidateDirectory.deleteLastPathComponent()
        }
        return binary("permission-server")
    }
}
