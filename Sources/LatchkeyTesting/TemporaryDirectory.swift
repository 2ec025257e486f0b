import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The private directories the test keychains live in, and the environment that hands one to a child.
enum TemporaryDirectory {
    /// Makes a new directory, mode 0700 (`mkdtemp(3)`), named `latchkey-test-XXXXXX`, under `/dev/shm` when
    /// `inMemory` is set and that directory exists and is writable, else under the temporary directory.
    ///
    /// - Throws: `KeychainError.Code.io` when the directory cannot be made.
    static func make(inMemory: Bool = false) throws(KeychainError) -> String {
        var parent = FileManager.default.temporaryDirectory.path
        if inMemory {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
                access("/dev/shm", W_OK) == 0
            {
                parent = "/dev/shm"
            }
        }
        var template = Array((parent + "/latchkey-test-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        guard created != nil else {
            throw KeychainError(.io, "Cannot create a temporary directory under \(parent).")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This process's environment with `LATCHKEY_KEYCHAIN`, `LATCHKEY_DEVICE_SECRET`, `LATCHKEY_PASSPHRASE`
    /// and `LATCHKEY_ACCESS_GROUPS` naming a test keychain, and `extra` on top.
    static func environment(
        path: String,
        deviceSecretPath: String,
        passphrase: String,
        accessGroups: [String],
        extra: [String: String]
    ) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_KEYCHAIN"] = path
        environment["LATCHKEY_DEVICE_SECRET"] = deviceSecretPath
        environment["LATCHKEY_PASSPHRASE"] = passphrase
        environment["LATCHKEY_ACCESS_GROUPS"] = accessGroups.joined(separator: ",")
        environment.merge(extra) { _, new in new }
        return environment
    }
}
