import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that must never be printed, logged or compared in variable time: passwords, tokens, keys.
///
/// `SecretData` keeps its bytes in one heap buffer that is overwritten with zeros when the last copy
/// is released. Its `description` is redacted and `==` runs in time independent of where the two
/// values differ.
///
/// ```swift
/// let secret = SecretData(string: "hunter2")
/// print(secret)            // SecretData(7 bytes, redacted)
/// let bytes = secret.data  // an explicit copy when a caller really needs `Data`
/// ```
public struct SecretData: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    // SAFETY: `bytes` is written only in `init` and `deinit`; every other access is a read.
    private final class Storage: @unchecked Sendable {
        var bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        deinit {
            bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else { return }
                #if canImport(Glibc)
                explicit_bzero(base, buffer.count)
                #else
                memset_s(base, buffer.count, 0, buffer.count)
                #endif
            }
        }
    }

    private let storage: Storage

    /// Wraps a copy of `bytes`.
    ///
    /// - Parameter bytes: The secret bytes; the caller's own copy is not zeroed.
    public init(_ bytes: some Sequence<UInt8>) {
        storage = Storage(Array(bytes))
    }

    /// Wraps the UTF-8 encoding of `string`.
    ///
    /// - Parameter string: The secret text.
    public init(string: String) {
        storage = Storage(Array(string.utf8))
    }

    /// The number of secret bytes.
    public var count: Int { storage.bytes.count }

    /// Whether the secret holds no bytes (present but empty, as opposed to absent).
    public var isEmpty: Bool { storage.bytes.isEmpty }

    /// A copy of the bytes as `Data`; the copy is not zeroed on release, so keep it short-lived.
    public var data: Data { Data(storage.bytes) }

    /// The bytes decoded as UTF-8, or `nil` when they are not valid UTF-8.
    public var utf8String: String? { String(validating: storage.bytes, as: UTF8.self) }

    /// Calls `body` with a read-only view of the bytes, without copying them.
    ///
    /// - Parameter body: A closure that must not let the pointer escape.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = storage.bytes.withUnsafeBytes { buffer in
            do throws(E) {
                return .success(try body(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Compares two secrets in time that depends only on their lengths.
    public static func == (lhs: SecretData, rhs: SecretData) -> Bool {
        constantTimeEquals(lhs.storage.bytes, rhs.storage.bytes)
    }

    /// Hashes only the length, so that hashing leaks nothing about the content.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
    }

    /// A redacted text that gives the length only.
    public var description: String { "SecretData(\(count) bytes, redacted)" }

    /// The same redacted text as `description`.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump()` and debuggers show no bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Compares two byte sequences without an early exit on the first difference.
package func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(lhs, rhs) {
        difference |= left ^ right
    }
    return difference == 0
}
