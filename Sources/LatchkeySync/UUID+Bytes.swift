import Foundation

extension UUID {
    /// The UUID's 16 bytes in network order, as they enter associated data and HKDF salts.
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// The UUID made of the first 16 bytes of `bytes` (which must hold at least 16).
    init(bytes: some Collection<UInt8>) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in
            for (index, byte) in bytes.prefix(16).enumerated() { target[index] = byte }
        }
        self.init(uuid: raw)
    }
}
