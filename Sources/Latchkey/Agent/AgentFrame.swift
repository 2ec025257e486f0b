import Foundation
import LatchkeyCrypto

#if canImport(Glibc)
import Glibc
#endif

/// The agent protocol's framing on a Unix stream socket: a 4-byte big-endian length, then that many
/// bytes (a `KeychainWireCodec` frame, or a handshake frame).
///
/// Frames longer than `maximumLength` (16 MiB) are refused before anything is allocated for them. Sends
/// use `MSG_NOSIGNAL`, so a peer that went away is an `EPIPE` failure, never a `SIGPIPE`.
package enum AgentFrame {
    /// The largest frame either side accepts: 16 MiB.
    package static let maximumLength = 16 << 20

    /// Why a frame could not be read or written.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The peer closed the connection before a frame began (a clean end).
        case closed
        /// The peer closed the connection in the middle of a frame.
        case truncated
        /// The announced length is over `maximumLength`.
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
            case .tooLarge(let length): "a frame of \(length) bytes is over the limit of \(AgentFrame.maximumLength)"
            case .system(let code): String(cString: strerror(code))
            }
        }
    }

    /// Writes one frame: the length prefix and `payload`.
    package static func write(_ payload: Data, to descriptor: Int32) throws(Failure) {
        guard payload.count <= maximumLength else { throw .tooLarge(payload.count) }
        let length = UInt32(payload.count)
        var frame = [UInt8](repeating: 0, count: 4 + payload.count)
        frame[0] = UInt8(truncatingIfNeeded: length >> 24)
        frame[1] = UInt8(truncatingIfNeeded: length >> 16)
        frame[2] = UInt8(truncatingIfNeeded: length >> 8)
        frame[3] = UInt8(truncatingIfNeeded: length)
        _ = frame.withUnsafeMutableBytes { buffer in
            payload.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[4...]))
        }
        defer { wipe(&frame) }
        try sendAll(frame, to: descriptor)
    }

    /// Reads one frame's payload.
    ///
    /// - Throws: `.closed` when the peer ended the connection between frames, `.truncated` inside one,
    ///   `.tooLarge` for a length over the limit (nothing more is read), `.system` for an I/O error.
    package static func read(from descriptor: Int32) throws(Failure) -> Data {
        var header = [UInt8](repeating: 0, count: 4)
        try receiveExactly(&header, from: descriptor, atFrameStart: true)
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length <= maximumLength else { throw .tooLarge(length) }
        var payload = [UInt8](repeating: 0, count: length)
        defer { wipe(&payload) }
        try receiveExactly(&payload, from: descriptor, atFrameStart: false)
        return Data(payload)
    }

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

    private static func receiveExactly(
        _ buffer: inout [UInt8],
        from descriptor: Int32,
        atFrameStart: Bool
    ) throws(Failure) {
        var offset = 0
        while offset < buffer.count {
            let received = buffer.withUnsafeMutableBytes { raw in
                recv(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, 0)
            }
            if received < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if received == 0 { throw atFrameStart && offset == 0 ? .closed : .truncated }
            offset += received
        }
    }
}
