import Foundation

/// Overwrites `bytes` with zeros (best effort: copies the runtime made earlier are out of reach).
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        _ = memset(base, 0, buffer.count)
    }
}
