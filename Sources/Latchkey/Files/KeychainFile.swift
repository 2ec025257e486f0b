import Foundation

/// A keychain file, for what administers files rather than items (macOS `security create-keychain`,
/// `delete-keychain`, `show-keychain-info`): create one, open one in this process, read what it says about
/// itself without a credential, delete one.
///
/// Items are read and written through the `KeychainService` that `open` returns, or through the agent's
/// client when an agent serves the file (`KeychainContext.agent(serving:)` makes that choice), so every
/// face above the engine opens a file through this type and names no engine store.
///
/// ```swift
/// let file = try KeychainFile.create(at: path, credentials: [.passphrase(passphrase)])
/// let service = try file.open(credentials: [.passphrase(passphrase)])
/// try service.add(.genericPassword, attributes: [.service: .string("api")], data: secret)
/// ```
public struct KeychainFile: Sendable, Hashable {
    /// The file's path.
    public let path: String

    /// Names the keychain file at `path` (nothing is read until a method runs).
    public init(path: String) {
        self.path = path
    }

    /// Whether a file exists at `path`.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Creates a new keychain at `path` protected by `credentials` (one unlock slot each).
    ///
    /// - Throws: `KeychainError` — `param` without credentials, `duplicateItem` when a file is already there,
    ///   `readOnly` for read-only options, `io` when the directory cannot be made private.
    @discardableResult
    public static func create(
        at path: String,
        credentials: [UnlockCredential],
        options: KeychainFileOptions = KeychainFileOptions()
    ) throws(KeychainError) -> KeychainFile {
        let store = try KeychainStore.create(path: path, credentials: credentials, options: options)
        try store.close()
        return KeychainFile(path: store.path)
    }

    /// Opens the file in this process: the service every item operation, unlock, lock and credential change
    /// goes through. The first of `credentials` that opens it unlocks it; with none its lock state is the one
    /// this process already has for the file (locked in a new process) until `.unlock` succeeds.
    ///
    /// - Parameter createIfMissing: Create the file from `credentials` when it does not exist (refused with
    ///   `interactionNotAllowed` when there is none); otherwise a missing file is `noSuchKeychain`.
    /// - Throws: `KeychainError` — `authFailed` when no credential opens it, `decode` for a file that is not a
    ///   keychain.
    public func open(
        credentials: [UnlockCredential] = [],
        createIfMissing: Bool = false,
        options: KeychainFileOptions = KeychainFileOptions()
    ) throws(KeychainError) -> any KeychainService {
        try KeychainStore.open(
            path: path,
            credentials: credentials,
            createIfMissing: createIfMissing,
            options: options
        )
    }

    /// What the file says about itself, read without a credential and without write access.
    ///
    /// - Throws: `KeychainError` — `noSuchKeychain` when there is no file, `decode` when it is not a keychain.
    public func facts(options: KeychainFileOptions = KeychainFileOptions()) throws(KeychainError) -> Facts {
        var readOnly = options
        readOnly.readOnly = true
        let store = try KeychainStore.open(path: path, credentials: [], createIfMissing: false, options: readOnly)
        defer { try? store.close() }
        return Facts(isWaitingForFirstUnlock: store.isWaitingForFirstUnlock, hasPassphrase: try store.hasPassphrase())
    }

    /// Deletes the keychain: its file and SQLite's `-wal`, `-shm` and `-journal` files beside it. The file is
    /// first opened, so that a file that is not a keychain is never deleted.
    ///
    /// - Throws: `KeychainError` — `noSuchKeychain` when there is no file, `decode` when it is not a keychain
    ///   (nothing is deleted), `io` naming the file that could not be removed.
    public func delete(options: KeychainFileOptions = KeychainFileOptions()) throws(KeychainError) {
        let store = try KeychainStore.open(path: path, credentials: [], createIfMissing: false, options: options)
        try store.close()
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            do {
                try FileManager.default.removeItem(atPath: path + suffix)
            } catch {
                throw KeychainError(.io, "Cannot remove \(path + suffix): \(error.localizedDescription)")
            }
        }
    }

    /// What a keychain file says about itself without a credential.
    public struct Facts: Sendable, Equatable {
        /// The file was made by the agent's installation and gets its keys (and its passphrase) at the first
        /// unlock; until then it holds no item.
        public var isWaitingForFirstUnlock: Bool
        /// The file has a passphrase slot (items `whenPasscodeSetThisDeviceOnly` need one).
        public var hasPassphrase: Bool

        /// Facts with these values.
        public init(isWaitingForFirstUnlock: Bool, hasPassphrase: Bool) {
            self.isWaitingForFirstUnlock = isWaitingForFirstUnlock
            self.hasPassphrase = hasPassphrase
        }
    }
}
