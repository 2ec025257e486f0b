import Crypto
import Foundation
import LatchkeyCrypto

/// The per-machine secret that binds ThisDeviceOnly classes (and the passphrase-free `always` classes)
/// to this machine and user.
///
/// It is 32 random bytes in a 0600 file outside the keychain's directory, mixed with `/etc/machine-id`
/// when that file exists, so that a keychain file copied or restored elsewhere cannot open these classes.
enum DeviceSecret {
    /// Loads the secret at `path`, creating it when missing; `nil` when it can be neither read nor created.
    static func load(path: String) -> SymmetricKey? {
        let raw: Data
        if let existing = FileManager.default.contents(atPath: path), existing.count == 32 {
            raw = existing
        } else if FileManager.default.fileExists(atPath: path) {
            return nil
        } else {
            let directory = (path as NSString).deletingLastPathComponent
            do {
                try FileSafety.ensurePrivateDirectory(directory)
            } catch {
                return nil
            }
            let bytes = SecureRandom.bytes(32)
            let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                fsync(descriptor)
                close(descriptor)
                guard written == 32 else { return nil }
            }
            // Another process may have won the race to create it: read back whatever is there.
            guard let stored = FileManager.default.contents(atPath: path), stored.count == 32 else { return nil }
            raw = stored
        }
        let machineID = FileManager.default.contents(atPath: "/etc/machine-id") ?? Data()
        return KeyWrap.derive(from: SymmetricKey(data: raw), salt: machineID, label: "latchkey device secret v1")
    }
}
