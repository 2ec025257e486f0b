import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Synchronization

/// The unwrapped keys of one open keychain and its lock state, shared by every thread of the process.
package final class KeyRing: Sendable {
    /// What an operation needs, copied out under the lock so that crypto runs without holding it.
    struct Snapshot: Sendable {
        var lockState: LockState = .neverUnlocked
        var tokens: TokenCache?
        var classKeys: [Accessibility: SymmetricKey] = [:]
        var master: SymmetricKey?
        /// The index key (tokens and the row ledger's keys are derived from it).
        var indexKey: SymmetricKey?
        /// Whether the file keeps a row ledger (its index key is wrapped under the format 2 context).
        var ledgerRequired = false
        /// Whether the file waits for the first unlock to create its keys (no slot yet).
        var waitingForFirstUnlock = false
    }

    /// Unwraps the index key under the format 2 context, else the format 1 one; `ledger` tells which.
    static func unwrapIndex(
        _ wrapped: Data,
        kek: SymmetricKey,
        fileID: Data
    ) throws -> (key: SymmetricKey, ledger: Bool) {
        do {
            let key = try KeyWrap.unwrap(
                wrapped,
                with: kek,
                context: KeyHierarchy.indexContext(fileID: fileID, ledger: true)
            )
            return (key, true)
        } catch {
            let key = try KeyWrap.unwrap(
                wrapped,
                with: kek,
                context: KeyHierarchy.indexContext(fileID: fileID, ledger: false)
            )
            return (key, false)
        }
    }

    let fileID: Data
    let device: SymmetricKey?
    private let state: Mutex<Snapshot>
    /// Lock-state transitions, for readiness waiters and change observers (published under `state`'s lock).
    package let lockStates = LockStateSignal(.neverUnlocked)

    /// Loads what the device secret alone can open (index key, `dk` and `dku` class keys).
    ///
    /// - Parameter waitingForFirstUnlock: Whether the file waits for the unlock that creates its keys
    ///   (`KeyHierarchy.waitingName`).
    init(
        fileID: Data,
        device: SymmetricKey?,
        indexByDevice: Data?,
        classKeys: [ClassKeyRow],
        waitingForFirstUnlock: Bool = false
    ) {
        self.fileID = fileID
        self.device = device
        var snapshot = Snapshot()
        snapshot.waitingForFirstUnlock = waitingForFirstUnlock
        Self.load(into: &snapshot, device: device, fileID: fileID, indexByDevice: indexByDevice, classKeys: classKeys)
        state = Mutex(snapshot)
    }

    /// Adds to `snapshot` the index key and class keys that `device` opens.
    private static func load(
        into snapshot: inout Snapshot,
        device: SymmetricKey?,
        fileID: Data,
        indexByDevice: Data?,
        classKeys: [ClassKeyRow]
    ) {
        guard let device else { return }
        if snapshot.tokens == nil, let wrapped = indexByDevice,
            let index = try? Self.unwrapIndex(
                wrapped,
                kek: KeyHierarchy.indexKEK(device: device, fileID: fileID),
                fileID: fileID
            )
        {
            snapshot.tokens = TokenCache(tokenizer: IndexTokenizer(key: index.key))
            snapshot.indexKey = index.key
            snapshot.ledgerRequired = index.ledger
        }
        for row in classKeys {
            guard let keyClass = Accessibility(rawValue: row.keyClass), let wrapped = row.byDevice,
                let kek = KeyHierarchy.deviceKEK(for: keyClass, device: device, fileID: fileID)
            else { continue }
            // A file from another machine simply leaves these classes unavailable.
            if let key = try? KeyWrap.unwrap(
                wrapped,
                with: kek,
                context: KeyHierarchy.classContext(keyClass, fileID: fileID)
            ) {
                snapshot.classKeys[keyClass] = key
            }
        }
    }

    /// After the first unlock wrote a waiting file's keys: loads what the device secret opens, as `init`
    /// does for a file that had them, and ends the wait.
    func finishFirstUnlock(indexByDevice: Data?, classKeys: [ClassKeyRow]) {
        let (device, fileID) = (self.device, self.fileID)
        state.withLock { snapshot in
            Self.load(
                into: &snapshot,
                device: device,
                fileID: fileID,
                indexByDevice: indexByDevice,
                classKeys: classKeys
            )
            snapshot.waitingForFirstUnlock = false
        }
    }

    /// A copy of the current keys and state.
    func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// Unwraps everything the master key opens and moves to `unlocked`.
    func unlock(master: SymmetricKey, indexByMaster: Data?, classKeys: [ClassKeyRow]) throws(KeychainError) {
        var unwrapped: [Accessibility: SymmetricKey] = [:]
        for row in classKeys {
            guard let keyClass = Accessibility(rawValue: row.keyClass), let wrapped = row.byMaster,
                let kek = KeyHierarchy.masterKEK(for: keyClass, master: master, device: device, fileID: fileID)
            else { continue }
            // ThisDeviceOnly classes of a file made on another machine stay unavailable.
            if let key = try? KeyWrap.unwrap(
                wrapped,
                with: kek,
                context: KeyHierarchy.classContext(keyClass, fileID: fileID)
            ) {
                unwrapped[keyClass] = key
            }
        }
        var tokens: TokenCache?
        var index: (key: SymmetricKey, ledger: Bool)?
        if let wrapped = indexByMaster {
            do {
                index = try Self.unwrapIndex(
                    wrapped,
                    kek: KeyHierarchy.indexKEK(master: master, fileID: fileID),
                    fileID: fileID
                )
                tokens = index.map { TokenCache(tokenizer: IndexTokenizer(key: $0.key)) }
            } catch {
                throw KeychainError(.decode, "The keychain's index key is damaged.", underlying: "\(error)")
            }
        }
        state.withLock { snapshot in
            snapshot.master = master
            snapshot.lockState = .unlocked
            if snapshot.tokens == nil {
                snapshot.tokens = tokens
                snapshot.indexKey = index?.key
            }
            // Either copy under the format 2 context means the file keeps a ledger.
            if index?.ledger == true { snapshot.ledgerRequired = true }
            snapshot.classKeys.merge(unwrapped) { current, _ in current }
            lockStates.publish(.unlocked)
        }
    }

    /// Records that the file now keeps a row ledger (after this process upgraded it).
    func markLedgerRequired() {
        state.withLock { $0.ledgerRequired = true }
    }

    /// Forgets the master key and the keys of classes that need "unlocked".
    func lock() {
        state.withLock { snapshot in
            guard snapshot.lockState == .unlocked else { return }
            snapshot.master = nil
            snapshot.lockState = .locked
            snapshot.classKeys = snapshot.classKeys.filter { $0.key.requirement != .unlocked }
            lockStates.publish(.locked)
        }
    }
}
