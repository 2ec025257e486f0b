import Crypto
import Foundation
import Latchkey
import Logging

/// What `KeychainSync.setup` made: the secrets are shown once and kept nowhere on this machine.
public struct SyncSetup: Sendable, Codable {
    /// The sync keychain's id.
    public var keychain: UUID
    /// This machine's id.
    public var machine: UUID
    /// Recovers the sync key with no machine left (`latchkey sync join --recovery-secret-stdin`).
    public var recoverySecret: String
    /// Lets unattended machines join (`latchkey sync join --enrollment-secret-stdin`); rotatable.
    public var enrollmentSecret: String
}

/// How a machine proves it may join.
public enum SyncJoinSecret: Sendable {
    /// The recovery secret `setup` printed.
    case recovery(String)
    /// The current enrollment secret.
    case enrollment(String)
}

// Setting up, joining and leaving (docs/sync.md §10).
extension KeychainSync {
    /// Turns sync on for `store` as the first machine of a new sync keychain: migrates the database, makes a
    /// random sync key and the recovery and enrollment secrets, stores the key wrapped under each, registers
    /// this machine, keeps the settings (with the database password) sealed in the keychain, and queues every
    /// synchronizable item.
    ///
    /// - Parameters:
    ///   - databaseURL: The PostgreSQL URL.
    ///   - enrollmentUses: How many machines the enrollment secret may enrol (`nil`: unlimited).
    /// - Throws: `KeychainError` — `duplicateItem` when sync is already set up, `notAvailable` when the server
    ///   fails, `param` for a bad URL.
    public func setup(databaseURL: String, enrollmentUses: Int? = nil) async throws(KeychainError) -> SyncSetup {
        if try await readSettings() != nil { throw alreadySyncing() }
        let syncKey = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        let machineKey = Curve25519.KeyAgreement.PrivateKey()
        let settings = SyncSettings(
            databaseURL: databaseURL,
            keychain: UUID(),
            machine: UUID(),
            epoch: 0,
            syncKey: syncKey,
            machineKey: machineKey.rawRepresentation
        )
        let recovery = SyncSecret.random(.recovery)
        let enrollment = SyncSecret.random(.enrollment)
        let logger = logger
        try await Self.withServer(databaseURL, logger: logger) { server throws(KeychainError) in
            do {
                try await SyncSchema.migrateDatabase(server.client, logger: logger)
                try await server.registerMachine(
                    keychain: settings.keychain,
                    machine: settings.machine,
                    publicKey: machineKey.publicKey.rawRepresentation
                )
                for secret in [recovery, enrollment] {
                    let wrapped = try secret.wrap(syncKey: syncKey, keychain: settings.keychain, epoch: settings.epoch)
                    try await server.storeSecret(
                        secret,
                        keychain: settings.keychain,
                        wrapped: wrapped,
                        uses: secret.kind == .enrollment ? enrollmentUses : nil
                    )
                }
            } catch {
                throw Self.mapped(error)
            }
        }
        try await save(settings)
        return SyncSetup(
            keychain: settings.keychain,
            machine: settings.machine,
            recoverySecret: recovery.text,
            enrollmentSecret: enrollment.text
        )
    }

    /// Joins the sync keychain whose recovery or enrollment secret is `secret`: unwraps the sync key the
    /// server keeps for it (using one of an enrollment secret's uses), registers this machine, keeps the
    /// settings and queues this keychain's synchronizable items (items already on the server converge with
    /// them by identity; `syncNow()` then pulls the rest).
    ///
    /// - Returns: This machine's id.
    /// - Throws: `KeychainError` — `authFailed` for an unknown, used-up or mistyped secret, `duplicateItem`
    ///   when sync is already set up.
    @discardableResult
    public func join(databaseURL: String, secret: SyncJoinSecret) async throws(KeychainError) -> UUID {
        if try await readSettings() != nil { throw alreadySyncing() }
        let parsed: SyncSecret
        switch secret {
        case .recovery(let text): parsed = try SyncSecret.parse(text, kind: .recovery)
        case .enrollment(let text): parsed = try SyncSecret.parse(text, kind: .enrollment)
        }
        let machineKey = Curve25519.KeyAgreement.PrivateKey()
        let machine = UUID()
        let logger = logger
        let settings = try await Self.withServer(databaseURL, logger: logger) { server throws(KeychainError) in
            do {
                try await SyncSchema.migrateDatabase(server.client, logger: logger)
                let unwrapped = try parsed.unwrap(try await server.redeem(parsed))
                try await server.registerMachine(
                    keychain: unwrapped.keychain,
                    machine: machine,
                    publicKey: machineKey.publicKey.rawRepresentation
                )
                return SyncSettings(
                    databaseURL: databaseURL,
                    keychain: unwrapped.keychain,
                    machine: machine,
                    epoch: unwrapped.epoch,
                    syncKey: unwrapped.syncKey,
                    machineKey: machineKey.rawRepresentation
                )
            } catch {
                throw Self.mapped(error)
            }
        }
        try await save(settings)
        return machine
    }

    /// Makes a new enrollment secret, replacing the old one on the server (machines that joined with it stay).
    ///
    /// - Parameter uses: How many machines it may enrol (`nil`: unlimited).
    /// - Returns: The new secret, shown once.
    public func rotateEnrollmentSecret(uses: Int? = nil) async throws(KeychainError) -> String {
        let settings = try await requiredSettings()
        let secret = SyncSecret.random(.enrollment)
        let wrapped = try secret.wrap(syncKey: settings.syncKey, keychain: settings.keychain, epoch: settings.epoch)
        try await Self.withServer(settings.databaseURL, logger: logger) { server throws(KeychainError) in
            do {
                try await server.storeSecret(secret, keychain: settings.keychain, wrapped: wrapped, uses: uses)
            } catch {
                throw Self.mapped(error)
            }
        }
        return secret.text
    }

    /// The machines of this sync keychain.
    public func machines() async throws(KeychainError) -> [SyncMachine] {
        let settings = try await requiredSettings()
        return try await Self.withServer(settings.databaseURL, logger: logger) { server throws(KeychainError) in
            do {
                return try await server.machines(keychain: settings.keychain, asking: settings.machine)
            } catch {
                throw Self.mapped(error)
            }
        }
    }

    /// Marks machine `id` revoked on the server. (Key rotation, which keeps a removed machine from reading
    /// later rows, is not built yet: docs/sync.md.)
    ///
    /// - Throws: `KeychainError.Code.itemNotFound` when the keychain has no such machine.
    public func removeMachine(_ id: UUID) async throws(KeychainError) {
        let settings = try await requiredSettings()
        let found = try await Self.withServer(settings.databaseURL, logger: logger) { server throws(KeychainError) in
            do {
                return try await server.setMachineState(keychain: settings.keychain, machine: id, state: "revoked")
            } catch {
                throw Self.mapped(error)
            }
        }
        guard found else {
            throw KeychainError(.itemNotFound, "The sync keychain has no machine \(id); see `latchkey sync machines`.")
        }
    }

    /// Stops syncing this keychain file: forgets the settings, outbox, versions and history here, and marks this
    /// machine revoked on the server when it answers. No item is deleted, here or on any other machine.
    ///
    /// - Returns: Whether the server was told.
    @discardableResult
    public func leave() async throws(KeychainError) -> Bool {
        let settings = try await requiredSettings()
        var told = false
        do {
            told = try await Self.withServer(settings.databaseURL, logger: logger) { server throws(KeychainError) in
                do {
                    return try await server.setMachineState(
                        keychain: settings.keychain,
                        machine: settings.machine,
                        state: "revoked"
                    )
                } catch {
                    throw Self.mapped(error)
                }
            }
        } catch {
            logger.warning("sync leave: the server was not told", metadata: ["error": "\(Self.mapped(error).message)"])
        }
        try await transaction { transaction in try transaction.clearSync() }
        return told
    }

    /// Stores `settings` and queues every synchronizable item, in one transaction.
    private func save(_ settings: SyncSettings) async throws(KeychainError) {
        let encoded = try settings.encoded()
        try await transaction { transaction in
            try transaction.clearSync()
            try transaction.setSyncSettings(encoded)
            try transaction.enqueueAllSyncedItems()
        }
    }

    /// `error` as the layer's face shows it: a `KeychainError` stays, a `SyncError` is mapped.
    static func mapped(_ error: any Error) -> KeychainError {
        if let error = error as? KeychainError { return error }
        if let error = error as? SyncError { return error.keychainError }
        return KeychainError(.internalComponent, "Sync failed: \(type(of: error)).")
    }

    private func alreadySyncing() -> KeychainError {
        KeychainError(
            .duplicateItem,
            "Sync is already set up for this keychain; run `latchkey sync leave` first to sync it elsewhere."
        )
    }
}
