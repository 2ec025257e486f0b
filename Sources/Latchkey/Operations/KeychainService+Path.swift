extension KeychainService {
    /// The keychain file this service reads and writes: the file of a keychain opened in process, or the
    /// keychain the per-user agent serves; `nil` for another service.
    ///
    /// For messages and for tying caches to a file, so that a face never needs to know which kind of service
    /// it holds.
    public var keychainPath: String? {
        if let store = self as? KeychainStore { return store.path }
        if let agent = self as? AgentClient { return agent.welcome.keychain }
        return nil
    }
}
