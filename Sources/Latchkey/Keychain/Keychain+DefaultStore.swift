extension Keychain {
    /// The keychain file used by every `Keychain` made without a store: the process context's store
    /// (`KeychainContext.current()`), shared with the `SecItem*` functions and `LAContext`.
    ///
    /// Opened once per process on first use with `KeychainStore.open()`: the file named by
    /// `LATCHKEY_KEYCHAIN` (or `~/.local/share/latchkey/login.keychain-db`), unlocked with the
    /// credentials named by `LATCHKEY_KEY_FILE`, `LATCHKEY_PASSPHRASE_FILE` or `LATCHKEY_PASSPHRASE`, and
    /// the process's access groups. A keychain opened without credentials stays locked until you call
    /// `unlock(with:)` on the returned store; `waitUntilAvailable()` waits for that.
    ///
    /// - Throws: The `KeychainError` of `KeychainStore.open` (for example `.interactionNotAllowed` when no
    ///   keychain exists and no credential was given to create one), or `.notAvailable` when the context's
    ///   keychain is not opened in this process. A failed open is retried next time.
    public static func defaultStore() throws(KeychainError) -> KeychainStore {
        guard let store = try KeychainContext.current().store else {
            throw KeychainError(.notAvailable, "The process's keychain context has no in-process store.")
        }
        return store
    }

    /// Makes `store` the process-wide default (for example one opened with custom options), replacing
    /// any store opened before: installs `KeychainContext(store:)`, so `SecItem*` calls use it too.
    public static func setDefaultStore(_ store: KeychainStore) {
        KeychainContext.install(KeychainContext(store: store))
    }
}
