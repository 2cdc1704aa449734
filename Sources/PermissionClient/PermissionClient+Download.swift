import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Downloads: a 2xx body written to the caller's sink as it arrives, of any size, for an answer
/// too large to hold in memory (a user's export of up to `--max-export-records` records; a
/// buffered call refuses a body over 16 MiB).
///
/// The status, the content type and `X-Request-Id` are checked as for any call, and an error
/// status is still the `.http` error with its problem: only a 2xx body reaches the sink, and
/// only when its `Content-Type` is the media type the endpoint accepts. There is no total
/// timeout: `Configuration.timeout` bounds each wait for a byte instead (the head included, so
/// for an answer the server builds before its first byte it is the time that may take), and
/// cancelling the task of the async form aborts the download. The async form holds one of the
/// client's call threads (`Configuration.maxCallThreads`) for as long as it runs; its wait for
/// one is bounded by `timeout` like any wait for a byte, and does not shorten the waits after
/// it. An attempt that fails before
/// the sink took a byte is retried as a `GET` is (`RetryPolicy`); once bytes were written it
/// is not, since the sink cannot take them again.
extension PermissionClient {
    /// Performs `endpoint` on the calling thread, handing its 2xx body to `sink` chunk by chunk,
    /// in order, as it arrives.
    /// - Parameters:
    ///   - endpoint: a byte endpoint, e.g. `Endpoints.exportDocument(user:)`.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    ///   - sink: takes each chunk (valid only during the call); `false` stops the download,
    ///     which then fails with `.transport` code `PermissionClientError.writeFailedCode`.
    /// - Returns: the number of body bytes the sink took, with the status, request id and `ETag`.
    /// - Throws: `.http` with the problem for an error status; `.decoding` for a 2xx of another
    ///   content type; `.transport` for a lost connection, a body shorter than its
    ///   `Content-Length`, a wait for a byte longer than `timeout` (code 28), or a sink that
    ///   stopped (code 23).
    public func downloadBlocking(
        _ endpoint: Endpoint<[UInt8]>, requestId: String? = nil, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(PermissionClientError) -> PermissionResponse<Int64> {
        let prepared = try Self.prepare(endpoint, requestId: requestId).get()
        let result = withoutActuallyEscaping(sink) { sink in
            download(prepared, cancel: nil) { sink($0) ? nil : "the sink stopped the download" }
        }
        return try result.get()
    }

    /// Performs `endpoint` on the calling thread, writing its 2xx body to `descriptor` (a
    /// file, a pipe, standard output) as it arrives; the descriptor is not closed.
    /// - Parameters:
    ///   - endpoint: a byte endpoint, e.g. `Endpoints.exportDocument(user:)`.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    ///   - descriptor: an open descriptor to write to.
    /// - Returns: the number of body bytes written, with the status, request id and `ETag`.
    /// - Throws: as `downloadBlocking(_:requestId:into:)`; a failed `write(2)` is `.transport`
    ///   code 23 with its `strerror`.
    public func downloadBlocking(
        _ endpoint: Endpoint<[UInt8]>, requestId: String? = nil, toFileDescriptor descriptor: Int32
    ) throws(PermissionClientError) -> PermissionResponse<Int64> {
        try download(Self.prepare(endpoint, requestId: requestId).get(), cancel: nil) {
            Self.writeAll($0, to: descriptor).map { "cannot write to descriptor \(descriptor): " + $0 }
        }.get()
    }

    /// Performs `endpoint` without blocking the caller, handing its 2xx body to `sink` chunk by
    /// chunk as it arrives (on the SDK's thread); cancelling the task aborts the download.
    /// - Parameters:
    ///   - endpoint: a byte endpoint, e.g. `Endpoints.exportDocument(user:)`.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    ///   - sink: as for `downloadBlocking(_:requestId:into:)`.
    /// - Returns: the number of body bytes the sink took, with the status, request id and `ETag`.
    public func download(
        _ endpoint: Endpoint<[UInt8]>, requestId: String? = nil,
        into sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async throws(PermissionClientError) -> PermissionResponse<Int64> {
        let prepared = try Self.prepare(endpoint, requestId: requestId).get()  // a bad argument fails at once
        return try await onCallThread { cancel, admission in
            self.download(prepared, cancel: cancel, admission: admission) {
                sink($0) ? nil : "the sink stopped the download"
            }
        }.get()
    }

    /// Performs `endpoint` without blocking the caller, writing its 2xx body to `descriptor`
    /// as it arrives; cancelling the task aborts the download. The descriptor is not closed.
    /// - Parameters:
    ///   - endpoint: a byte endpoint, e.g. `Endpoints.exportDocument(user:)`.
    ///   - requestId: the `X-Request-Id` to send; a new one when `nil`.
    ///   - descriptor: an open descriptor to write to.
    /// - Returns: the number of body bytes written, with the status, request id and `ETag`.
    public func download(
        _ endpoint: Endpoint<[UInt8]>, requestId: String? = nil, toFileDescriptor descriptor: Int32
    ) async throws(PermissionClientError) -> PermissionResponse<Int64> {
        let prepared = try Self.prepare(endpoint, requestId: requestId).get()  // a bad argument fails at once
        return try await onCallThread { cancel, admission in
            self.download(prepared, cancel: cancel, admission: admission) {
                Self.writeAll($0, to: descriptor).map { "cannot write to descriptor \(descriptor): " + $0 }
            }
        }.get()
    }

    /// The download itself.
    /// - Parameters:
    ///   - prepared: the byte endpoint's exchange and request id (``prepare(_:requestId:)``).
    ///   - admission: how an async download met the call threads; `nil` for the blocking form.
    ///   - write: takes a chunk; a message when it could not (which ends the download).
    func download(
        _ prepared: PreparedCall, cancel: CancellationFlag?,
        admission: CallThreads.Admission? = nil, write: (UnsafeRawBufferPointer) -> String?
    ) -> Result<PermissionResponse<Int64>, PermissionClientError> {
        if let refused: Result<PermissionResponse<Int64>, PermissionClientError> = refused(prepared, admission) {
            return refused
        }
        let started = admission?.calledAt ?? ContinuousClock.now
        let waited = admission?.waited ?? .zero
        let (id, call) = (prepared.requestId, prepared.call)
        var written: Int64 = 0
        var sinkFailure: String?
        let (result, attempts) = withoutActuallyEscaping(write) { write in
            execute(
                call, requestId: id, cancel: cancel, retry: configuration.retry, timeoutMilliseconds: 0,
                stream: { bytes in
                    if let failure = write(bytes) {
                        sinkFailure = failure
                        return false
                    }
                    written += Int64(bytes.count)
                    return true
                },
                streamType: call.accept, idleLimit: .milliseconds(max(1, configuration.timeout.roundedUpMilliseconds)),
                mayRetry: { written == 0 && sinkFailure == nil })
        }
        let outcome = result.flatMap { raw -> Result<PermissionResponse<Int64>, PermissionClientError> in
            let requestId = raw.requestId ?? id
            guard (200..<300).contains(raw.status) else {
                return .failure(.http(status: raw.status, problem: Self.problem(in: raw), requestId: requestId))
            }
            guard Self.isMediaType(raw.contentType, call.accept) else {
                return .failure(
                    .decoding(
                        status: raw.status, message: "the answer is \(raw.contentType ?? "untyped"), not \(call.accept)",
                        requestId: requestId))
            }
            if let sinkFailure {
                return .failure(
                    .transport(code: PermissionClientError.writeFailedCode, message: sinkFailure, requestId: requestId))
            }
            if let announced = raw.contentLength, announced != written {
                return .failure(
                    .transport(
                        code: 18, message: "the body ended after \(written) of its \(announced) bytes", requestId: requestId))
            }
            return .success(
                PermissionResponse(
                    value: written, status: raw.status, requestId: requestId, etag: raw.etag, attempts: attempts,
                    revision: raw.revision))
        }
        report(outcome, of: call, requestId: id, attempts: attempts, started: started, queueWait: waited)
        return outcome
    }

    /// Whether `contentType` (parameters aside) is the media type `expected` (RFC 9110 §8.3.1:
    /// case-insensitive).
    static func isMediaType(_ contentType: String?, _ expected: String) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == expected.lowercased()
    }

    /// Writes all of `bytes` to `descriptor`, again after `EINTR` (`permctl` writes its files
    /// and standard output with it too).
    /// - Returns: `nil`, or the `strerror` of the failed `write(2)`.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += count
        }
        return nil
    }
}
