// libFuzzer entry point for the HTTP/1.1 request parser and body decoder.
// Built together with Sources/HTTPCore/HTTP1/*.swift as one module by run-parser-fuzzer.sh,
// so internal helpers are reachable (ByteText, which they import, is built beside it by
// fuzz/lib.sh). Every property below traps (a finding) when broken.

import ByteText

/// A small deterministic PRNG (SplitMix64), seeded from the input so runs are reproducible.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(below bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}

/// Limits small enough that fuzzed inputs reach every bound.
let tightLimits: HTTPLimits = {
    var l = HTTPLimits()
    l.maxRequestLineBytes = 64
    l.maxHeaderBytes = 256
    l.maxHeaderCount = 6
    l.maxBodyBytes = 300
    l.maxChunkLineBytes = 24
    l.maxTrailerBytes = 64
    return l
}()

/// Decodes `bytes` in one call, or in the pieces `cuts` makes; returns what a caller would see.
func decodeBody(_ bytes: [UInt8], framing: HTTPBodyFraming, limits: HTTPLimits, cuts: [Int]) -> String {
    var decoder = HTTPBodyDecoder(framing: framing, limits: limits)
    var body: [UInt8] = []
    var consumed = 0
    var start = 0
    for end in cuts + [bytes.count] where end >= start {
        let piece = Array(bytes[start..<end])
        do {
            let (n, complete) = try decoder.decode(piece, into: &body)
            precondition(n <= piece.count, "consumed more than given")
            consumed += n
            if complete { return "complete \(consumed) \(body) \(decoder.trailers.fields.map { "\($0.name):\($0.value)" })" }
            precondition(n == piece.count, "an incomplete body must consume every byte")
        } catch {
            return "error \(error)"
        }
        start = end
    }
    return "incomplete \(consumed) \(body)"
}

func check(_ data: [UInt8], limits: HTTPLimits, rng: inout SplitMix64) {
    let parser = HTTPRequestParser(limits: limits)
    let full = parser.parseHead(data)
    // Any prefix is either `needMore` or already the same answer.
    for _ in 0..<4 where !data.isEmpty {
        let p = rng.next(below: data.count + 1)
        let partial = parser.parseHead(Array(data[0..<p]))
        if case .complete(_, let consumed) = full, p >= consumed {
            precondition(partial == full, "prefix past the head changed the result")
        } else {
            precondition(partial == .needMore || partial == full, "prefix \(p) gave \(partial), full gave \(full)")
        }
    }
    guard case .complete(let head, let consumed) = full else { return }
    precondition(consumed > 0 && consumed <= data.count)
    if let query = head.query { _ = parseQuery(query) }
    _ = percentDecode(Substring(head.path))
    let rest = Array(data[consumed...])
    let whole = decodeBody(rest, framing: head.framing, limits: limits, cuts: [])
    var cuts: [Int] = []
    var at = 0
    while at < rest.count {
        at += 1 + rng.next(below: 8)
        if at < rest.count { cuts.append(at) }
    }
    let split = decodeBody(rest, framing: head.framing, limits: limits, cuts: cuts)
    precondition(whole == split, "split body decode differs:\n\(whole)\n\(split)")
    let bytewise = decodeBody(rest, framing: head.framing, limits: limits, cuts: rest.indices.map { $0 })
    precondition(whole == bytewise, "byte-wise body decode differs:\n\(whole)\n\(bytewise)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let pointer, size > 0 else { return 0 }
    let data = Array(UnsafeBufferPointer(start: pointer, count: size))
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in data { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
    var rng = SplitMix64(state: hash)
    check(data, limits: HTTPLimits(), rng: &rng)
    check(data, limits: tightLimits, rng: &rng)
    // The UTF-8 check of percentDecode against the standard library's.
    precondition(
        data.withUnsafeBufferPointer { UTF8Sequence.isValid($0) } == (String(validating: data, as: UTF8.self) != nil),
        "UTF-8 validation differs")
    return 0
}
