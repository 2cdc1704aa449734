/// A query of a batch the domain refused before anything was evaluated: which one (its
/// position) and why (`unknownService` or `unknownLevel`).
public struct AccessQueryError: Error, Sendable, Equatable {
    public let index: Int
    public let error: PermissionError

    public init(index: Int, error: PermissionError) {
        self.index = index
        self.error = error
    }
}
