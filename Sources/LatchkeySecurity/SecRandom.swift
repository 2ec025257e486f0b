#if !canImport(Darwin)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `SecRandomRef`: an opaque random-number generator reference; only `kSecRandomDefault` exists.
public typealias SecRandomRef = OpaquePointer

/// `kSecRandomDefault`: the default cryptographically secure generator (`nil`, as on Apple platforms).
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef? = nil

/// `SecRandomCopyBytes`: fills `bytes` with `count` cryptographically secure random bytes.
///
/// Uses the kernel's generator (`/dev/urandom`, read fully).
///
/// - Parameters:
///   - rnd: `kSecRandomDefault` (any value is treated as the default generator).
///   - count: How many bytes to write.
///   - bytes: Where to write them.
/// - Returns: `errSecSuccess`, or `errSecParam`/`errSecIO` on failure.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    if count == 0 { return errSecSuccess }
    let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return errSecIO }
    defer { close(descriptor) }
    var filled = 0
    while filled < count {
        let result = read(descriptor, bytes + filled, count - filled)
        if result < 0, errno == EINTR { continue }
        guard result > 0 else { return errSecIO }
        filled += result
    }
    return errSecSuccess
}
#endif
