import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Logging

/// An open keychain file: encrypted items, unlock slots and the process's lock state.
///
/// This is the typed storage API that every other face of Latchkey (the `Security` module, the
/// high-level `Keychain`, the CLI, the token manager) sits on. It is safe to use from any number of
/// threads and processes at once.
///
/// ```swift
/// let store = try KeychainStore.open(credentials: [.passphrase(SecretData(string: "correct horse"))])
/// try store.add(.genericPassword,
///               attributes: [.service: .string("api.example.com"), .account: .string("alice")],
///               data: SecretData(string: "s3cret"))
/// let item = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
///                              withData: true)
/// ```
public final class KeychainStore: Sendable {
    /// How a keychain is opened (`KeychainFileOptions`, named here as the engine always has).
    public typealias Options = KeychainFileOptions

    /// The keychain file's path.
    public let path: String
    /// The options it was opened with.
    public let options: Options
    let storage: StorageFile
    package let keys: KeyRing
    /// Rollback detection for this open file (shared by every scoped view of it).
    let ledger: RowLedger
    /// The observers told after each write this store (or a scoped view of it) commits.
    let commits: CommitObservers
    /// Whether this is a view made by `scoped(accessGroups:)` for one client (the agent's): maintenance
    /// reports then cover only its groups' items (`verifyIntegrity()`).
    let isScoped: Bool

    private init(
        path: String,
        options: Options,
        storage: StorageFile,
        keys: KeyRing,
        ledger: RowLedger = RowLedger(),
        commits: CommitObservers = CommitObservers(),
        isScoped: Bool = false
    ) {
        self.path = path
        self.options = options
        self.storage = storage
        self.keys = keys
        self.ledger = ledger
        self.commits = commits
        self.isScoped = isScoped
    }

    /// The same open keychain (file, keys, lock state) seen with other access groups: what the agent hands
    /// each client, whose groups come from its identity rather than from its own claim.
    ///
    /// The returned store shares everything with this one but `options.accessGroups`; it is as cheap as a
    /// value and may be made per request. Its maintenance reports (`verifyIntegrity()`) cover only the items
    /// of those groups.
    public func scoped(accessGroups: [String]) -> KeychainStore {
        var scopedOptions = options
        scopedOptions.accessGroups = accessGroups
        return KeychainStore(
            path: path,
            options: scopedOptions,
            storage: storage,
            keys: keys,
            ledger: ledger,
            commits: commits,
            isScoped: true
        )
    }

    /// The lock state in this process.
    public var lockState: LockState { keys.snapshot().lockState }

    /// Opens a keychain, creating it when it does not exist, and unlocks it with the first credential
    /// that works.
    ///
    /// - Parameters:
    ///   - path: The file; `nil` for `KeychainLocation.defaultKeychainPath()` (`$LATCHKEY_KEYCHAIN` or the
    ///     data directory's `login.keychain-db`).
    ///   - credentials: Unlock credentials; `nil` reads `LATCHKEY_KEY_FILE`, `LATCHKEY_PASSPHRASE_FILE` and
    ///     `LATCHKEY_PASSPHRASE`. A new keychain gets one slot per credential.
    ///   - createIfMissing: Whether a missing file is created (it then needs at least one credential).
    ///   - options: Access groups, KDF cost, device secret and logging.
    /// - Throws: `KeychainError` — `.interactionNotAllowed` when a keychain must be created but there is
    ///   no credential, `.authFailed` for a wrong passphrase, `.decode` for a file that is not a keychain.
    public static func open(
        path: String? = nil,
        credentials: [UnlockCredential]? = nil,
        createIfMissing: Bool = true,
        options: Options = Options()
    ) throws(KeychainError) -> KeychainStore {
        let named = path != nil
        let path = path ?? KeychainLocation.defaultKeychainPath()
        let resolved: [UnlockCredential]
        if let credentials {
            resolved = credentials
        } else {
            resolved = try UnlockCredential.fromEnvironment()
        }
        let credentials = resolved
        let store: KeychainStore
        if FileManager.default.fileExists(atPath: path) {
            store = try attach(path: path, options: options)
        } else {
            guard createIfMissing else {
                throw KeychainError(named ? .noSuchKeychain : .noDefaultKeychain, "No keychain exists at \(path).")
            }
            guard !credentials.isEmpty else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "The keychain at \(path) does not exist and no passphrase or key file was given to create it "
                        + "(set LATCHKEY_KEY_FILE or LATCHKEY_PASSPHRASE_FILE, or run `latchkey create-keychain`)."
                )
            }
            store = try create(path: path, credentials: credentials, options: options, failIfExists: false)
        }
        if !credentials.isEmpty, store.lockState != .unlocked {
            var lastError: KeychainError?
            for credential in credentials {
                do {
                    try store.unlock(with: credential)
                    lastError = nil
                    break
                } catch {
                    lastError = error
                }
            }
            if let lastError { throw lastError }
        }
        return store
    }

    /// Creates a new keychain protected by `credentials` (at least one), unlocked in this process.
    ///
    /// - Parameter failIfExists: Throw `duplicateItem` when a file is already there (otherwise open it).
    /// - Throws: `KeychainError.Code.param` without credentials; `.duplicateItem` when the file exists.
    public static func create(
        path: String,
        credentials: [UnlockCredential],
        options: Options = Options(),
        failIfExists: Bool = true
    ) throws(KeychainError) -> KeychainStore {
        guard !credentials.isEmpty else {
            throw KeychainError(.param, "A new keychain needs a passphrase or a key file.")
        }
        if options.readOnly { throw KeychainError(.readOnly, "Cannot create a keychain in read-only mode.") }
        let directory = (path as NSString).deletingLastPathComponent
        try FileSafety.ensurePrivateDirectory(directory.isEmpty ? "." : directory)
        let device = try DeviceSecret.load(path: options.deviceSecretPath ?? KeychainLocation.defaultDeviceSecretPath())
        var master: SymmetricKey?
        let created = try mappingErrors {
            try StorageFile.create(path: path, busyTimeout: options.busyTimeout) { writer in
                master = try KeyHierarchy.initialize(
                    writer,
                    credentials: credentials,
                    cost: options.kdfCost,
                    device: device
                )
            }
        }
        if !created.created {
            try mappingErrors { try created.file.close() }
            if failIfExists { throw KeychainError(.duplicateItem, "A keychain already exists at \(path).") }
            return try attach(path: path, options: options)
        }
        options.logger.info("created keychain", metadata: ["path": "\(path)"])
        let store = try attach(path: path, options: options, storage: created.file, device: device)
        if let master {
            try store.unlock(master: master)
        } else {
            try store.unlock(with: credentials[0])
        }
        return store
    }

    private static func attach(
        path: String,
        options: Options,
        storage existing: StorageFile? = nil,
        device: SymmetricKey? = nil
    ) throws(KeychainError) -> KeychainStore {
        try FileSafety.checkPrivate(file: path)
        let storage: StorageFile
        if let given = existing {
            storage = given
        } else {
            storage = try mappingErrors {
                try StorageFile.open(path: path, readOnly: options.readOnly, busyTimeout: options.busyTimeout)
            }
        }
        let device: SymmetricKey? =
            if let device { device } else {
                try DeviceSecret.load(path: options.deviceSecretPath ?? KeychainLocation.defaultDeviceSecretPath())
            }
        let (fileID, indexByDevice, classKeys, waiting) = try mappingErrors {
            try storage.read { reader in
                (
                    try reader.meta(KeyHierarchy.fileIDName),
                    try reader.meta(KeyHierarchy.indexByDeviceName),
                    try reader.classKeys(),
                    try reader.meta(KeyHierarchy.waitingName) != nil
                )
            }
        }
        guard let fileID, fileID.count == 16 else {
            throw KeychainError(.decode, "\(path) has no valid file identifier: not a Latchkey keychain or damaged.")
        }
        let keys = KeyRing(
            fileID: fileID,
            device: device,
            indexByDevice: indexByDevice,
            classKeys: classKeys,
            waitingForFirstUnlock: waiting
        )
        return KeychainStore(path: path, options: options, storage: storage, keys: keys)
    }

    /// Unlocks with a passphrase or key file; classes needing "unlocked" become readable. The first unlock
    /// of a keychain that waits for it (`openWaitingForFirstUnlock`) creates its keys with `credential`.
    ///
    /// - Throws: `authFailed` (-25293) for a wrong credential; `decode` for a damaged slot.
    public func unlock(with credential: UnlockCredential) throws(KeychainError) {
        let (slots, indexByMaster, classKeys) = try mappingErrors {
            try storage.read { reader in
                (try reader.slots(), try reader.meta(KeyHierarchy.indexByMasterName), try reader.classKeys())
            }
        }
        if slots.isEmpty, keys.snapshot().waitingForFirstUnlock {
            try completeFirstUnlock(with: credential)
            return
        }
        let master = try KeyHierarchy.unlockMaster(slots: slots, credential: credential, fileID: keys.fileID)
        try keys.unlock(master: master, indexByMaster: indexByMaster, classKeys: classKeys)
        adoptLedgerIfNeeded(master: master)
        options.logger.debug("keychain unlocked", metadata: ["path": "\(path)"])
    }

    /// Unlocks with an already recovered master key (right after creation).
    private func unlock(master: SymmetricKey) throws(KeychainError) {
        let (indexByMaster, classKeys) = try mappingErrors {
            try storage.read { reader in (try reader.meta(KeyHierarchy.indexByMasterName), try reader.classKeys()) }
        }
        try keys.unlock(master: master, indexByMaster: indexByMaster, classKeys: classKeys)
    }

    /// Locks: forgets the master key and the keys of `whenUnlocked` classes; `afterFirstUnlock` and
    /// `always` classes stay readable, as on iOS.
    public func lock() {
        keys.lock()
        options.logger.debug("keychain locked", metadata: ["path": "\(path)"])
    }

    /// Whether the keychain has a passphrase slot (needed by `whenPasscodeSetThisDeviceOnly`).
    public func hasPassphrase() throws(KeychainError) -> Bool {
        try mappingErrors { try storage.read { try $0.slots().contains { $0.kind == "passphrase" } } }
    }

    /// Replaces every passphrase slot with one for `newPassphrase`; only the master key is rewrapped.
    ///
    /// - Throws: `interactionNotAllowed` unless the keychain is unlocked.
    public func changePassphrase(to newPassphrase: SecretData) throws(KeychainError) {
        try replaceSlots(kind: "passphrase", with: .passphrase(newPassphrase))
    }

    /// Adds a key-file slot (replacing existing key-file slots) for `keyFile`.
    ///
    /// - Throws: `interactionNotAllowed` unless the keychain is unlocked.
    public func setKeyFile(_ keyFile: UnlockCredential) throws(KeychainError) {
        try replaceSlots(kind: "keyfile", with: keyFile)
    }

    private func replaceSlots(kind: String, with credential: UnlockCredential) throws(KeychainError) {
        guard let master = keys.snapshot().master else {
            throw KeychainError(.interactionNotAllowed, "Unlock the keychain before changing how it is unlocked.")
        }
        let slot = try mappingErrors {
            try KeyHierarchy.makeSlot(for: credential, master: master, fileID: keys.fileID, cost: options.kdfCost)
        }
        try mappingErrors {
            try storage.write { writer in
                try writer.deleteSlots(kind: kind)
                try writer.insertSlot(slot)
            }
        }
    }

    /// Moves every WAL frame into the main database file.
    public func checkpoint() throws(KeychainError) {
        try mappingErrors { try storage.checkpoint() }
    }

    /// Closes the file; the store must not be used afterwards.
    public func close() throws(KeychainError) {
        try mappingErrors { try storage.close() }
    }

    /// A counter that every committed item change bumps, in any process sharing the file.
    public func changeCounter() throws(KeychainError) -> Int64 {
        try mappingErrors { try storage.read { try $0.changeCounter() } }
    }
}
