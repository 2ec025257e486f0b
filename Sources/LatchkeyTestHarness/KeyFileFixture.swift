import Foundation
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A keychain path, key file and device secret in a private temporary directory; nothing exists until a
/// command creates it, except the key file.
public final class KeyFileFixture: @unchecked Sendable {
    // SAFETY: every stored property is an immutable value; the class exists for `deinit` cleanup.
    /// The temporary directory and keychain path (with access group `com.example.app`).
    public let scratch = TemporaryKeychain(accessGroups: ["com.example.app"])
    /// The key file's path (`LATCHKEY_KEY_FILE`): 32 random bytes in hex, mode 0600.
    public let keyFile: String
    /// The device secret's path (`LATCHKEY_DEVICE_SECRET`).
    public let deviceSecret: String

    /// Creates the directory and the key file.
    ///
    /// - Parameter deviceSecret: The device secret's path under the directory (its parent may not exist).
    public init(deviceSecret: String = "state/device-secret") throws {
        keyFile = scratch.directory + "/unlock.key"
        self.deviceSecret = scratch.directory + "/" + deviceSecret
        let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        try #require(FileManager.default.createFile(atPath: keyFile, contents: Data(hex.utf8)))
        try #require(chmod(keyFile, 0o600) == 0)
    }

    /// The private temporary directory.
    public var directory: String { scratch.directory }
    /// The keychain's path.
    public var keychain: String { scratch.path }

    /// The environment of a child `latchkey` using this fixture's key file, keychain and device secret.
    public var environment: [String: String] {
        var environment = CLIRunner.environment(
            scratch,
            extra: ["LATCHKEY_KEY_FILE": keyFile, "LATCHKEY_DEVICE_SECRET": deviceSecret]
        )
        environment["LATCHKEY_PASSPHRASE"] = nil
        return environment
    }

    /// Runs the built `latchkey` with `arguments` in this fixture's environment.
    public func latchkey(_ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.latchkey(arguments, environment: environment, input: input)
    }

    /// The names in the fixture's directory that start with `prefix`.
    public func entries(startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }.sorted()
    }
}
