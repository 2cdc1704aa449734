/// Why a scan stopped short of a result: the input ends too early, or it is invalid.
enum ScanStop: Error {
    case needMore
    case failure(HTTPParseError)
}
