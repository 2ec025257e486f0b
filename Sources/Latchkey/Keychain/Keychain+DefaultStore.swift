import Synchronization

extension Keychain {
    /// The process-wide store opened by `defaultStore()`; failures are not remembered.
    private static let sharedStore = Mutex<KeychainStore?>(nil)

    /// The keychain file used by every `Keychain` made without a store.
    ///
    /// Opened once per process on first use with `KeychainStore.open()`: the file named by
    /// `LATCHKEY_KEYCHAIN` (or `~/.local/share/latchkey/login.keychain-db`), unlocked with the
    /// credentials named by `LATCHKEY_KEY_FILE`, `LATCHKEY_PASSPHRASE_FILE` or `LATCHKEY_PASSPHRASE`, and
    /// the process's access groups. A keychain opened without credentials stays locked until you call
    /// `unlock(with:)` on the returned store; `waitUntilAvailable()` waits for that.
    ///
    /// - Throws: The `KeychainError` of `KeychainStore.open` (for example `.interactionNotAllowed` when no
    ///   keychain exists and no credential was given to create one). A failed open is retried next time.
    public static func defaultStore() throws(KeychainError) -> KeychainStore {
        try sharedStore.withLock { (current: inout KeychainStore?) throws(KeychainError) -> KeychainStore in
            if let current { return current }
            let opened = try KeychainStore.open()
            current = opened
            return opened
        }
    }

    /// Makes `store` the process-wide default (for example one opened with custom options), replacing
    /// any store opened before. `Keychain` values made earlier without a store use it from then on.
    public static func setDefaultStore(_ store: KeychainStore) {
        sharedStore.withLock { $0 = store }
    }
}
