import Crypto
import Foundation

/// Cryptographically secure random bytes from the system generator.
package enum SecureRandom {
    /// `count` random bytes.
    package static func bytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                var word = generator.next()
                let take = min(8, buffer.count - offset)
                withUnsafeBytes(of: &word) { wordBytes in
                    for index in 0..<take { buffer[offset + index] = wordBytes[index] }
                }
                offset += take
            }
        }
        return data
    }
}
