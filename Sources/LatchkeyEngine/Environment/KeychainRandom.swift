import Foundation
import LatchkeyCrypto

/// Where the core takes the random identifiers of items (persistent references).
///
/// Keys and nonces always come from the system's cryptographically secure generator and are not
/// injectable; only identifiers that tests may want to predict go through this protocol.
public protocol KeychainRandom: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> Data
}

/// The system's cryptographically secure generator.
public struct SystemRandom: KeychainRandom {
    /// Makes the system generator.
    public init() {}

    /// `count` bytes from `SystemRandomNumberGenerator`.
    public func bytes(_ count: Int) -> Data { SecureRandom.bytes(count) }
}
