/// A test's own failure, thrown where a step cannot go on (a server that did not answer as the
/// next steps need).
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
