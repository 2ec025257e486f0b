import Foundation
import LatchkeyCrypto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent protocol's framing on a Unix stream socket: a 4-byte big-endian length, then that many
/// bytes (a `KeychainWireCodec` frame, or a handshake frame).
///
/// Requests longer than `maximumLength` (19 MiB, derived from `ItemSizeLimit`) are refused before anything
/// is allocated for them, and a frame's buffer grows only as its bytes arrive. Answers (which the client
/// reads from its own user's agent) may be up to `maximumAnswerLength`: a find of every item may return
/// many items at the item limit. Sends
/// use `MSG_NOSIGNAL`, so a peer that went away is an `EPIPE` failure, never a `SIGPIPE`.
package enum AgentFrame {
    /// The largest request the agent accepts (and the default limit of `read` and `write`): room for two items
    /// at the item limit (`ItemSizeLimit.maximumItemBytes`: `updateFirstOrAdd`, the typed API's `set`, carries
    /// the item's secret in its changes and in the item to add) plus 1 MiB for the query, attribute names and
    /// the encoding; 19 MiB.
    package static let maximumLength = 2 * ItemSizeLimit.maximumItemBytes + (1 << 20)

    /// The largest answer the agent sends and its client reads: 1 GiB (several items at the limit; a larger
    /// answer is replaced by a `param` error asking for fewer items).
    package static let maximumAnswerLength = 1 << 30

    /// Why a frame could not be read or written.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The peer closed the connection before a frame began (a clean end).
        case closed
        /// The peer closed the connection in the middle of a frame.
        case truncated
        /// The announced length is over the limit (`maximumLength` unless the caller gave another).
        case tooLarge(Int)
        /// A system call failed with this `errno` (`EPIPE` and `ECONNRESET` when the peer went away).
        case system(Int32)

        /// Whether the connection is gone (so a client may reconnect).
        package var isDisconnection: Bool {
            switch self {
            case .closed, .truncated: true
            case .system(let code): code == EPIPE || code == ECONNRESET || code == ENOTCONN
            case .tooLarge: false
            }
        }

        /// What happened, without any frame content.
        package var description: String {
            switch self {
            case .closed: "the connection was closed"
            case .truncated: "the connection was closed in the middle of a frame"
            case .tooLarge(let length): "a frame of \(length) bytes is over the limit"
            case .system(let code): String(cString: strerror(code))
            }
        }
    }

    /// Writes one frame, the length prefix and `payload`, with one `sendmsg` (two iovecs: no copy of the
    /// payload, one system call and one wake-up of the peer in the usual case).
    ///
    /// - Parameter limit: The longest payload sent (`maximumLength`; the agent's answers `maximumAnswerLength`).
    /// - Throws: `.tooLarge` (nothing sent) for a payload over `limit`; `.system` for an I/O error.
    package static func write(_ payload: Data, to descriptor: Int32, limit: Int = maximumLength) throws(Failure) {
        guard payload.count <= limit else { throw .tooLarge(payload.count) }
        var header = UInt32(payload.count).bigEndian
        let result = withUnsafeBytes(of: &header) { header in
            payload.withUnsafeBytes { body in sendFrame(header: header, body: body, to: descriptor) }
        }
        try result.get()
    }

    /// Reads one frame's payload, received straight into the returned `Data`'s buffer, which is zeroed
    /// when the `Data` is released (a payload may hold a secret).
    ///
    /// The buffer grows as the bytes arrive (from `initialCapacity`, doubling, up to the announced length),
    /// never to the announced length up front: a peer that announces 19 MiB and sends a few bytes holds a
    /// few bytes of the reader's memory. Each buffer given up while growing, and the buffer of a frame that
    /// fails, is zeroed (the bytes received) before it is freed.
    ///
    /// - Parameter seconds: The time the whole frame may take to arrive, or `nil` for no limit (the agent
    ///   gives a client's hello a short one).
    /// - Parameter limit: The longest payload accepted (`maximumLength`; the client reads answers with
    ///   `maximumAnswerLength`).
    /// - Throws: `.closed` when the peer ended the connection between frames, `.truncated` inside one,
    ///   `.tooLarge` for a length over `limit` (nothing more is read), `.system(ETIMEDOUT)` when `seconds`
    ///   passed, `.system` for another I/O error.
    package static func read(
        from descriptor: Int32,
        within seconds: TimeInterval? = nil,
        limit: Int = maximumLength
    ) throws(Failure) -> Data {
        let deadline = seconds.map { ContinuousClock.now + .milliseconds(Int64(max($0, 0) * 1000)) }
        var header: UInt32 = 0
        let headerResult = withUnsafeMutableBytes(of: &header) { raw in
            receiveExactly(raw, from: descriptor, atFrameStart: true, deadline: deadline)
        }
        try headerResult.get()
        let length = Int(UInt32(bigEndian: header))
        guard length <= limit else { throw .tooLarge(length) }
        guard length > 0 else { return Data() }
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(length, initialCapacity), alignment: 16)
        var filled = 0
        while filled < length {
            if filled == buffer.count {
                let grown = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: min(length, buffer.count * 2),
                    alignment: 16
                )
                grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
                release(buffer, used: filled)
                buffer = grown
            }
            let received = receiveSome(
                UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]),
                from: descriptor,
                deadline: deadline
            )
            switch received {
            case .success(0):
                release(buffer, used: filled)
                throw .truncated
            case .success(let count):
                filled += count
            case .failure(let error):
                release(buffer, used: filled)
                throw error
            }
        }
        guard let base = buffer.baseAddress else { return Data() }
        let complete = buffer
        return Data(bytesNoCopy: base, count: length, deallocator: .custom { _, _ in release(complete, used: length) })
    }

    /// The first buffer of a frame being read: frames up to this size (nearly every request and answer) are
    /// read into one allocation; longer ones grow from here as their bytes arrive.
    package static let initialCapacity = 64 << 10

    /// Buffers of at least this size are counted in `largeBuffersReleased` when freed.
    package static let largeBuffer = 1 << 20

    /// How many frame buffers of at least `largeBuffer` bytes were freed by this process: the agent returns
    /// free memory to the system when a connection ends after this moved.
    package static let largeBuffersReleased = Atomic<Int>(0)

    /// Sends every byte of `bytes`, retrying after interruptions and short writes.
    package static func sendAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            offset += sent
        }
    }

    private static func sendFrame(
        header: UnsafeRawBufferPointer,
        body: UnsafeRawBufferPointer,
        to descriptor: Int32
    ) -> Result<Void, Failure> {
        let total = header.count + body.count
        var sent = 0
        while sent < total {
            let result: Int
            if sent < header.count, body.count > 0, let bodyBase = body.baseAddress, let headerBase = header.baseAddress
            {
                var vectors = (
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: headerBase + sent), iov_len: header.count - sent),
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: bodyBase), iov_len: body.count)
                )
                result = withUnsafeMutableBytes(of: &vectors) { raw in
                    var message = msghdr()
                    message.msg_iov = raw.baseAddress?.assumingMemoryBound(to: iovec.self)
                    message.msg_iovlen = 2
                    return sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
                }
            } else if sent < header.count {
                result = send(
                    descriptor,
                    header.baseAddress.map { $0 + sent },
                    header.count - sent,
                    Int32(MSG_NOSIGNAL)
                )
            } else {
                let offset = sent - header.count
                result = send(
                    descriptor,
                    body.baseAddress.map { $0 + offset },
                    body.count - offset,
                    Int32(MSG_NOSIGNAL)
                )
            }
            if result < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            sent += result
        }
        return .success(())
    }

    private static func receiveExactly(
        _ buffer: UnsafeMutableRawBufferPointer,
        from descriptor: Int32,
        atFrameStart: Bool,
        deadline: ContinuousClock.Instant?
    ) -> Result<Void, Failure> {
        var offset = 0
        while offset < buffer.count {
            let received = receiveSome(
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]),
                from: descriptor,
                deadline: deadline
            )
            switch received {
            case .success(0): return .failure(atFrameStart && offset == 0 ? .closed : .truncated)
            case .success(let count): offset += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(())
    }

    /// One `recv` into `buffer` (after waiting for input until `deadline`, when there is one): the bytes
    /// received, 0 at the end of the stream.
    private static func receiveSome(
        _ buffer: UnsafeMutableRawBufferPointer,
        from descriptor: Int32,
        deadline: ContinuousClock.Instant?
    ) -> Result<Int, Failure> {
        while true {
            if let deadline {
                let remaining = deadline - .now
                guard remaining > .zero else { return .failure(.system(ETIMEDOUT)) }
                let (seconds, attoseconds) = remaining.components
                let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, milliseconds)
                if ready < 0 && errno != EINTR { return .failure(.system(errno)) }
                if ready <= 0 { continue }
            }
            let received = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if received < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno))
            }
            return .success(received)
        }
    }

    /// Zeroes the `used` bytes of `buffer` (the rest were never written) and frees it.
    private static func release(_ buffer: UnsafeMutableRawBufferPointer, used: Int) {
        if let base = buffer.baseAddress { explicit_bzero(base, used) }
        if buffer.count >= largeBuffer { largeBuffersReleased.wrappingAdd(1, ordering: .relaxed) }
        buffer.deallocate()
    }
}
