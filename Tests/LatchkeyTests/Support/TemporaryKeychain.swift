import Foundation
import Latchkey

/// A keychain in its own private temporary directory (mode 0700), with its own device secret, removed
/// when the value is released. Nothing touches the user's real keychain.
final class TemporaryKeychain: @unchecked Sendable {
    // SAFETY: every stored property is a `let` of a Sendable type; the class exists for `deinit` cleanup.
    let directory: String
    let path: String
    let deviceSecretPath: String
    let passphrase = SecretData(string: "correct horse battery staple")
    let accessGroups: [String]

    init(accessGroups: [String] = ["com.example.app", "com.example.shared"]) {
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-test-XXXXXX"
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
    func options(accessGroups: [String]? = nil, deviceSecretPath: String? = nil, readOnly: Bool = false)
        -> KeychainStore.Options
    {
        KeychainStore.Options(
            accessGroups: accessGroups ?? self.accessGroups,
            readOnly: readOnly,
            kdfCost: .testing,
            deviceSecretPath: deviceSecretPath ?? self.deviceSecretPath
        )
    }

    /// Opens (creating on first use) the keychain, unlocked with the test passphrase unless `credentials` says otherwise.
    func open(
        credentials: [UnlockCredential]? = nil,
        accessGroups: [String]? = nil,
        deviceSecretPath: String? = nil,
        readOnly: Bool = false
    ) throws -> KeychainStore {
        try KeychainStore.open(
            path: path,
            credentials: credentials ?? [.passphrase(passphrase)],
            options: options(accessGroups: accessGroups, deviceSecretPath: deviceSecretPath, readOnly: readOnly)
        )
    }

    /// Environment for a child `latchkey` process using this keychain.
    func environment(extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_KEYCHAIN"] = path
        environment["LATCHKEY_DEVICE_SECRET"] = deviceSecretPath
        environment["LATCHKEY_PASSPHRASE"] = "correct horse battery staple"
        environment["LATCHKEY_ACCESS_GROUPS"] = accessGroups.joined(separator: ",")
        environment.merge(extra) { _, new in new }
        return environment
    }
}
