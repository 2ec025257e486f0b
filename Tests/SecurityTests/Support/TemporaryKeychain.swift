#if !canImport(Darwin)
import Foundation
import Latchkey

/// A keychain in its own private temporary directory (mode 0700), with its own device secret, removed
/// when the value is released. Nothing touches the user's real keychain. (Copied from LatchkeyTests.)
final class TemporaryKeychain: @unchecked Sendable {
    // SAFETY: every stored property is a `let` of a Sendable type; the class exists for `deinit` cleanup.
    let directory: String
    let path: String
    let deviceSecretPath: String
    let passphrase = SecretData(string: "correct horse battery staple")
    let accessGroups: [String]

    init(accessGroups: [String] = ["com.example.app", "com.example.shared"]) {
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-sec-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        path = directory + "/test.keychain-db"
        deviceSecretPath = directory + "/device-secret"
        self.accessGroups = accessGroups
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Options with the test's groups, device secret and the cheap test KDF cost.
    func options(accessGroups: [String]? = nil) -> KeychainStore.Options {
        KeychainStore.Options(
            accessGroups: accessGroups ?? self.accessGroups,
            kdfCost: .testing,
            deviceSecretPath: deviceSecretPath
        )
    }

    /// Opens (creating on first use) the keychain, unlocked with the test passphrase.
    func open(accessGroups: [String]? = nil) throws -> KeychainStore {
        try KeychainStore.open(
            path: path,
            credentials: [.passphrase(passphrase)],
            options: options(accessGroups: accessGroups)
        )
    }
}
#endif
