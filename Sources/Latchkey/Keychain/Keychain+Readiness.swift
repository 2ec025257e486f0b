extension Keychain {
    /// Waits until the items this keychain reads can be read, then returns.
    ///
    /// "Readable" follows the keychain's `accessibility`: `whenUnlocked` classes need the keychain
    /// unlocked in this process; `afterFirstUnlock` classes need one unlock since the keychain was
    /// opened (they stay readable after `lock()`); `always` classes are readable at once. Returns
    /// immediately when that is already the case.
    ///
    /// Use it where an app would otherwise treat a locked keychain as "logged out":
    ///
    /// ```swift
    /// do {
    ///     token = try await keychain.string(forKey: "token")
    /// } catch KeychainError.Code.interactionNotAllowed {
    ///     try await keychain.waitUntilAvailable()
    ///     token = try await keychain.string(forKey: "token")
    /// }
    /// ```
    ///
    /// The signal is the store's lock state in this process (`KeychainStore.lockStateUpdates()`): any
    /// unlock (a passphrase typed into a prompt, a key file, a per-user agent that hands this process
    /// its keys) wakes every waiter at once, with no polling.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled; `KeychainError` when the
    ///   default store cannot be opened.
    public func waitUntilAvailable() async throws {
        try Task.checkCancellation()
        let keychain = self
        let store = try await BlockingWork.run { () throws(KeychainError) -> KeychainStore in
            try keychain.resolvedStore()
        }
        for await state in store.lockStateUpdates() where state.permits(accessibility) {
            return
        }
        throw CancellationError()
    }

    /// Whether the items this keychain reads are readable now (see `waitUntilAvailable()`).
    ///
    /// Through the per-user agent (`resolvedService()` is an agent's client) this is the agent's lock
    /// state, asked with one `.lockState` request.
    ///
    /// - Throws: `KeychainError` when the default store cannot be opened or the agent cannot be reached.
    public func isAvailable() throws(KeychainError) -> Bool {
        let service = try resolvedService()
        if let store = service as? KeychainStore { return store.keys.lockStates.current.permits(accessibility) }
        guard case .lockState(let state) = try service.perform(.lockState) else {
            throw KeychainError(
                .internalComponent,
                "The keychain service answered a lock-state request with another outcome."
            )
        }
        return state.permits(accessibility)
    }
}
