import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// A keychain that waits for its first unlock: what the agent serves at the first login of a user who has no
/// keychain yet (docs/install.md, "The first login creates the keychain").
///
/// Such a file holds the schema and a file identifier, but no unlock slot and no key: nothing can be stored in
/// it, every request answers as a never-unlocked keychain does (`interactionNotAllowed`, saying that the first
/// unlock creates it), and the first `unlock(with:)`, from any process, writes its keys protected by that
/// credential, as gnome-keyring creates the login keyring with the login password.
extension KeychainStore {
    /// Opens the keychain at `path`, or, when no file is there, creates one that waits for its first unlock.
    ///
    /// - Parameters:
    ///   - path: The file; `nil` for `KeychainLocation.defaultKeychainPath()`.
    ///   - options: Access groups, KDF cost (of the slot the first unlock writes), device secret and logging.
    /// - Throws: `KeychainError` — `.readOnly` in read-only mode when the file is missing, the errors of an
    ///   ordinary open (`.decode` for a file that is not a keychain, `.io`, unsafe permissions).
    public static func openWaitingForFirstUnlock(
        path: String? = nil,
        options: Options = Options()
    ) throws(KeychainError) -> KeychainStore {
        let path = path ?? KeychainLocation.defaultKeychainPath()
        if FileManager.default.fileExists(atPath: path) {
            return try open(path: path, credentials: [], createIfMissing: false, options: options)
        }
        if options.readOnly { throw KeychainError(.readOnly, "Cannot create a keychain in read-only mode.") }
        let directory = (path as NSString).deletingLastPathComponent
        try FileSafety.ensurePrivateDirectory(directory.isEmpty ? "." : directory)
        let created = try mappingErrors {
            try StorageFile.create(path: path, busyTimeout: options.busyTimeout) { writer in
                try KeyHierarchy.initializeWaiting(writer)
            }
        }
        // Another process made the file first: it is opened as it is (waiting or not).
        try mappingErrors { try created.file.close() }
        if created.created {
            options.logger.info("keychain waits for its first unlock", metadata: ["path": "\(path)"])
        }
        return try open(path: path, credentials: [], createIfMissing: false, options: options)
    }

    /// Whether the keychain waits for the first unlock that creates its keys.
    public var isWaitingForFirstUnlock: Bool { keys.snapshot().waitingForFirstUnlock }

    /// The first unlock of a waiting keychain: writes a slot for `credential`, the index key, the ledger seal
    /// and the class keys, then unlocks with the new master key. When another process did it first, this is
    /// an ordinary unlock.
    func completeFirstUnlock(with credential: UnlockCredential) throws(KeychainError) {
        if options.readOnly { throw KeychainError(.readOnly, "Cannot create a keychain in read-only mode.") }
        if case .passphrase(let passphrase) = credential, passphrase.isEmpty {
            throw KeychainError(.param, "An empty passphrase would leave the new keychain unprotected; none was set.")
        }
        let (fileID, device, cost) = (keys.fileID, keys.device, options.kdfCost)
        let master: SymmetricKey? = try write { writer in
            guard try writer.reader.meta(KeyHierarchy.waitingName) != nil, try writer.reader.slots().isEmpty else {
                return nil
            }
            let master = try KeyHierarchy.initializeKeys(
                writer,
                fileID: fileID,
                credentials: [credential],
                cost: cost,
                device: device
            )
            try writer.deleteMeta(KeyHierarchy.waitingName)
            return master
        }
        let (indexByDevice, indexByMaster, classKeys) = try mappingErrors {
            try storage.read { reader in
                (
                    try reader.meta(KeyHierarchy.indexByDeviceName), try reader.meta(KeyHierarchy.indexByMasterName),
                    try reader.classKeys()
                )
            }
        }
        keys.finishFirstUnlock(indexByDevice: indexByDevice, classKeys: classKeys)
        guard let master else {
            try unlock(with: credential)
            return
        }
        try keys.unlock(master: master, indexByMaster: indexByMaster, classKeys: classKeys)
        options.logger.info("created keychain at its first unlock", metadata: ["path": "\(path)"])
    }

    /// The error of a request that needs keys a waiting keychain does not have yet.
    func waitingForFirstUnlockError() -> KeychainError {
        KeychainError(
            .interactionNotAllowed,
            "The keychain at \(path) has not been created yet: its first unlock creates it with that passphrase "
                + "(`latchkey unlock`, the login password through PAM, or a Secret Service unlock prompt)."
        )
    }
}
