// libFuzzer entry point for the JSON request bodies of the API.
// Built together with Sources/PermissionWire/*.swift as one module by run-json-fuzzer.sh, so
// internal helpers are reachable. Every property below traps (a finding) when broken.
//
// The input is the body; it is decoded as every request body type, with the default limits
// and with tight ones, so one interesting document exercises all ten decoders and both bounds.
import Foundation

/// Decodes `bytes` as `T`; on success checks that the value re-encodes to a body that
/// `StrictJSON` accepts and that decodes back to an equal value (RFC 8259 round trip).
/// - Returns: whether `bytes` decoded.
func roundTrip<T: RequestBody & Encodable & Equatable>(_ type: T.Type, _ bytes: [UInt8], limits: StrictJSON.Limits) -> Bool {
    let value: T
    do {
        value = try WireDecoder.decode(type, from: bytes, limits: limits)
    } catch {
        // A refusal must be well formed: a kind and a printable message.
        precondition(!error.message.isEmpty, "a refusal without a message")
        return false
    }
    let encoded: [UInt8]
    do {
        encoded = try WireEncoder.encode(value)
    } catch {
        preconditionFailure("\(T.self) decoded but does not encode: \(error)")
    }
    do {
        _ = try StrictJSON.parse(encoded, limits: StrictJSON.Limits(maxBytes: Int.max, maxDepth: 64))
    } catch {
        preconditionFailure("\(T.self) re-encoding is not strict JSON: \(error) \(String(decoding: encoded, as: UTF8.self))")
    }
    let again: T
    do {
        again = try WireDecoder.decode(type, from: encoded, limits: StrictJSON.Limits(maxBytes: Int.max, maxDepth: 64))
    } catch {
        preconditionFailure("\(T.self) re-encoding does not decode: \(error) \(String(decoding: encoded, as: UTF8.self))")
    }
    precondition(again == value, "\(T.self) round trip changed the value: \(value) → \(again)")
    return true
}

/// One decoder per request body type of openapi.yaml.
let decoders: [@Sendable ([UInt8], StrictJSON.Limits) -> Bool] = [
    { roundTrip(AccessRequest.self, $0, limits: $1) },
    { roundTrip(Decision.self, $0, limits: $1) },
    { roundTrip(SettingsChange.self, $0, limits: $1) },
    { roundTrip(LifecycleEvent.self, $0, limits: $1) },
    { roundTrip(UserSettings.self, $0, limits: $1) },
    { roundTrip(PolicyDefinition.self, $0, limits: $1) },
    { roundTrip(ResetRequest.self, $0, limits: $1) },
    { roundTrip(AppRegistration.self, $0, limits: $1) },
    { roundTrip(ServiceRegistration.self, $0, limits: $1) },
    { roundTrip(NewAPIKey.self, $0, limits: $1) },
]

/// Limits small enough that fuzzed inputs reach both bounds.
let tightJSONLimits = StrictJSON.Limits(maxBytes: 200, maxDepth: 4)

func checkStrict(_ body: [UInt8], limits: StrictJSON.Limits) -> Bool {
    do {
        _ = try StrictJSON.parse(body, limits: limits)
        precondition(body.count <= limits.maxBytes, "a body over maxBytes was accepted")
        precondition(String(validating: body, as: UTF8.self) != nil, "invalid UTF-8 was accepted")
        return true
    } catch {
        precondition(!error.message.isEmpty, "a refusal without a message")
        return false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let pointer, size > 0 else { return 0 }
    let data = Array(UnsafeBufferPointer(start: pointer, count: size))
    let body = data
    for limits in [StrictJSON.Limits(), tightJSONLimits] {
        let strict = checkStrict(body, limits: limits)
        for (index, decode) in decoders.enumerated() {
            let decoded = decode(body, limits)
            // Nothing decodes that the strict reader refused.
            precondition(!decoded || strict, "decoder \(index) accepted what StrictJSON refused")
        }
    }
    return 0
}
