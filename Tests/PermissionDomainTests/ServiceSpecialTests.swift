import PermissionDomain
import Testing

/// A service's specials as the stores keep them: a comma-joined list read back exactly, and an
/// unknown name refused (the stores then report the row as corrupt).
@Suite struct ServiceSpecialTests {
    @Test func storedListsReadBackAndUnknownNamesAreRefused() {
        #expect(ServiceSpecial.set(storedAs: []) == [])
        #expect(ServiceSpecial.set(storedAs: ["allowOnce", "resetOnReinstall"]) == [.allowOnce, .resetOnReinstall])
        let every = ServiceSpecial.allCases.map { Substring($0.rawValue) }
        #expect(ServiceSpecial.set(storedAs: every) == Set(ServiceSpecial.allCases))
        #expect(ServiceSpecial.set(storedAs: ["allowOnce", "teleport"]) == nil)
        #expect(ServiceSpecial.set(storedAs: [""]) == nil)
    }
}
