import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// The key hierarchy of a keychain file (docs/storage-format.md §Keys):
///
/// ```
/// unlock slot (scrypt passphrase | key file) ──wraps──▶ master key
/// master key ─HKDF─▶ KEKs for classes ak, ck, dk and the index key
/// master key ‖ device secret ─HKDF─▶ KEKs for aku, cku, akpu
/// device secret ─HKDF─▶ KEKs for dk, dku and the index key (readable without the passphrase)
/// class key ──wraps──▶ per-item key ──encrypts──▶ attributes, secret
/// ```
enum KeyHierarchy {
    /// Meta names.
    static let fileIDName = "fileid"
    static let indexByMasterName = "index.bymaster"
    static let indexByDeviceName = "index.bydevice"

    static func slotContext(kind: String, fileID: Data) -> Data { Data("latchkey/v1/slot/\(kind)".utf8) + fileID }
    static func classContext(_ keyClass: Accessibility, fileID: Data) -> Data {
        Data("latchkey/v1/class/\(keyClass.rawValue)".utf8) + fileID
    }
    /// The index key's associated data: `latchkey/v2/index` in a file that keeps a row ledger (format 2),
    /// `latchkey/v1/index` in a format 1 file. The version is bound into the wrapping, so a ledger file
    /// cannot be passed off as one without a ledger by editing unauthenticated fields.
    static func indexContext(fileID: Data, ledger: Bool = true) -> Data {
        Data((ledger ? "latchkey/v2/index" : "latchkey/v1/index").utf8) + fileID
    }

    /// The KEK under which the master-side wrapping of `keyClass` is made, or `nil` when the class has
    /// none (dku is device-only) or the device secret it needs is missing.
    static func masterKEK(
        for keyClass: Accessibility,
        master: SymmetricKey,
        device: SymmetricKey?,
        fileID: Data
    )
        -> SymmetricKey?
    {
        switch keyClass {
        case .whenUnlocked, .afterFirstUnlock, .always:
            return KeyWrap.derive(from: master, salt: fileID, label: "latchkey class \(keyClass.rawValue)")
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly:
            guard let device else { return nil }
            return KeyWrap.derive(
                from: KeyWrap.combine(master, device),
                salt: fileID,
                label: "latchkey class \(keyClass.rawValue)"
            )
        case .alwaysThisDeviceOnly:
            return nil
        }
    }

    /// The KEK for the device-side wrapping of `keyClass` (only `dk` and `dku` have one).
    static func deviceKEK(for keyClass: Accessibility, device: SymmetricKey, fileID: Data) -> SymmetricKey? {
        switch keyClass {
        case .always, .alwaysThisDeviceOnly:
            KeyWrap.derive(from: device, salt: fileID, label: "latchkey device class \(keyClass.rawValue)")
        default:
            nil
        }
    }

    static func indexKEK(master: SymmetricKey, fileID: Data) -> SymmetricKey {
        KeyWrap.derive(from: master, salt: fileID, label: "latchkey index")
    }

    static func indexKEK(device: SymmetricKey, fileID: Data) -> SymmetricKey {
        KeyWrap.derive(from: device, salt: fileID, label: "latchkey device index")
    }

    /// Writes the key material of a brand-new keychain: file id, slots, index key, class keys.
    ///
    /// - Returns: The new master key, so the creator is unlocked without running the KDF again.
    static func initialize(
        _ writer: StorageWriter,
        credentials: [UnlockCredential],
        cost: KDFCost,
        device: SymmetricKey?
    ) throws -> SymmetricKey {
        let fileID = SecureRandom.bytes(16)
        try writer.setMeta(fileIDName, fileID)
        return try initializeKeys(writer, fileID: fileID, credentials: credentials, cost: cost, device: device)
    }

    /// Writes the file identifier of a keychain that waits for its first unlock, and the mark that says so:
    /// no slot, no index key, no class key yet (`KeychainStore.openWaitingForFirstUnlock`).
    static func initializeWaiting(_ writer: StorageWriter) throws {
        try writer.setMeta(fileIDName, SecureRandom.bytes(16))
        try writer.setMeta(waitingName, Data([1]))
    }

    /// The `meta` entry of a keychain made by `initializeWaiting` whose first unlock has not happened yet.
    static let waitingName = "awaits.firstunlock"

    /// Writes the slots, index key, ledger seal and class keys of a new keychain whose file identifier is
    /// `fileID`.
    ///
    /// - Returns: The new master key.
    static func initializeKeys(
        _ writer: StorageWriter,
        fileID: Data,
        credentials: [UnlockCredential],
        cost: KDFCost,
        device: SymmetricKey?
    ) throws -> SymmetricKey {
        let master = KeyWrap.randomKey()
        for credential in credentials {
            try writer.insertSlot(makeSlot(for: credential, master: master, fileID: fileID, cost: cost))
        }
        let index = KeyWrap.randomKey()
        try writer.setMeta(
            indexByMasterName,
            KeyWrap.wrap(index, with: indexKEK(master: master, fileID: fileID), context: indexContext(fileID: fileID))
        )
        if let device {
            try writer.setMeta(
                indexByDeviceName,
                KeyWrap.wrap(
                    index,
                    with: indexKEK(device: device, fileID: fileID),
                    context: indexContext(fileID: fileID)
                )
            )
        }
        try writer.setLedgerSeal(LedgerSeal.empty.encoded(LedgerContext(tokenizer: IndexTokenizer(key: index))))
        for keyClass in Accessibility.allCases {
            let classKey = KeyWrap.randomKey()
            let context = classContext(keyClass, fileID: fileID)
            let byMaster = try masterKEK(for: keyClass, master: master, device: device, fileID: fileID).map {
                try KeyWrap.wrap(classKey, with: $0, context: context)
            }
            let byDevice = try device.flatMap { deviceKEK(for: keyClass, device: $0, fileID: fileID) }.map {
                try KeyWrap.wrap(classKey, with: $0, context: context)
            }
            try writer.putClassKey(ClassKeyRow(keyClass: keyClass.rawValue, byMaster: byMaster, byDevice: byDevice))
        }
        return master
    }

    /// A new unlock slot wrapping `master` for `credential`.
    static func makeSlot(
        for credential: UnlockCredential,
        master: SymmetricKey,
        fileID: Data,
        cost: KDFCost
    ) throws
        -> SlotRow
    {
        let kind: String
        let parameters: Data
        let kek: SymmetricKey
        switch credential {
        case .passphrase(let passphrase):
            let scrypt = cost.parameters()
            kind = "passphrase"
            parameters = scrypt.encoded
            kek = try scrypt.deriveKey(from: passphrase)
        case .keyFile(let bytes):
            kind = "keyfile"
            parameters = SecureRandom.bytes(32)
            kek = keyFileKEK(bytes, salt: parameters)
        }
        let wrapped = try KeyWrap.wrap(master, with: kek, context: slotContext(kind: kind, fileID: fileID))
        return SlotRow(
            kind: kind,
            parameters: parameters,
            wrappedMasterKey: wrapped,
            checksum: checksum(kind: kind, parameters: parameters, wrapped: wrapped)
        )
    }

    static func keyFileKEK(_ bytes: SecretData, salt: Data) -> SymmetricKey {
        bytes.withUnsafeBytes { KeyWrap.derive(from: SymmetricKey(data: $0), salt: salt, label: "latchkey key file") }
    }

    static func checksum(kind: String, parameters: Data, wrapped: Data) -> Data {
        var hasher = SHA256()
        hasher.update(data: Data(kind.utf8))
        hasher.update(data: [0])
        hasher.update(data: parameters)
        hasher.update(data: wrapped)
        return Data(hasher.finalize())
    }

    /// Recovers the master key from the first slot that `credential` opens.
    ///
    /// - Throws: `authFailed` for a wrong passphrase or key file; `decode` when the only candidate
    ///   slots are damaged.
    static func unlockMaster(
        slots: [SlotRow],
        credential: UnlockCredential,
        fileID: Data
    ) throws(KeychainError)
        -> SymmetricKey
    {
        let kind: String
        switch credential {
        case .passphrase: kind = "passphrase"
        case .keyFile: kind = "keyfile"
        }
        let candidates = slots.filter { $0.kind == kind }
        guard !candidates.isEmpty else {
            throw KeychainError(
                .authFailed,
                "This keychain has no \(kind == "keyfile" ? "key-file" : "passphrase") unlock slot."
            )
        }
        var damaged = 0
        for slot in candidates {
            guard
                checksum(kind: slot.kind, parameters: slot.parameters, wrapped: slot.wrappedMasterKey) == slot.checksum
            else {
                damaged += 1
                continue
            }
            let kek: SymmetricKey
            switch credential {
            case .passphrase(let passphrase):
                do {
                    kek = try ScryptParameters(encoded: slot.parameters).deriveKey(from: passphrase)
                } catch {
                    damaged += 1
                    continue
                }
            case .keyFile(let bytes):
                kek = keyFileKEK(bytes, salt: slot.parameters)
            }
            do {
                return try KeyWrap.unwrap(
                    slot.wrappedMasterKey,
                    with: kek,
                    context: slotContext(kind: kind, fileID: fileID)
                )
            } catch {
                continue
            }
        }
        if damaged == candidates.count {
            throw KeychainError(
                .decode,
                "The keychain's \(kind) unlock slot is damaged; use another unlock method or a backup."
            )
        }
        switch credential {
        case .passphrase:
            throw KeychainError(.authFailed, "The passphrase is not correct.")
        case .keyFile:
            throw KeychainError(.authFailed, "The key file does not unlock this keychain.")
        }
    }
}

/// How expensive the passphrase KDF of new slots is.
public enum KDFCost: Sendable, Hashable {
    /// scrypt N = 2^17, r = 8, p = 1: the default for real keychains.
    case standard
    /// scrypt N = 2^10: for tests and benchmarks only; must be asked for explicitly.
    case testing
    /// A custom log2(N) with r = 8, p = 1.
    case custom(logN: UInt8)

    func parameters() -> ScryptParameters {
        switch self {
        case .standard: .standard()
        case .testing: .testing()
        case .custom(let logN):
            ScryptParameters(logN: logN, blockSize: 8, parallelism: 1, salt: SecureRandom.bytes(32))
        }
    }
}
