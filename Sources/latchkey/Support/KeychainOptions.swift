import ArgumentParser
import Foundation
import Latchkey

/// Options every keychain command shares.
struct KeychainOptions: ParsableArguments {
    @Option(
        name: ItemOption.keychain.name,
        help: """
            The keychain file or name (default: $LATCHKEY_KEYCHAIN, else the default keychain). It must exist; only \
            the commands that add items create one, and only the default keychain.
            """
    )
    var keychain: String?

    @Option(
        name: ItemOption.kdfCost.name,
        help: ArgumentHelp("Passphrase KDF cost for new slots and archives: standard or testing.", visibility: .hidden)
    )
    var kdfCost: String = ItemDefaults.kdfCost

    /// The keychain and KDF cost these options select, as the fast path builds them too.
    var selection: KeychainSelection { KeychainSelection(name: keychain, cost: cost) }

    /// The keychain: `-k`, else `$LATCHKEY_KEYCHAIN`, else the default set with `default-keychain -s`, else
    /// the login keychain; absolute and symlink-free (`KeychainName.canonical`).
    var path: String { selection.path }

    /// The keychain `-k NAME` names (`nil`: the effective default), absolute and symlink-free. An empty name
    /// is refused by `validate()` (and sent to the full parser by the fast path) before it gets here.
    static func path(_ name: String?) -> String {
        guard let name, !name.isEmpty else { return KeychainConfig.effectiveDefault() }
        return KeychainName.canonical(KeychainLocation.resolve(name))
    }

    /// Whether the keychain was named (`-k` or `$LATCHKEY_KEYCHAIN`) rather than taken as the default: a missing
    /// named keychain is errSecNoSuchKeychain (-25294), the missing default errSecNoDefaultKeychain (-25307).
    var isNamed: Bool { selection.isNamed }

    var cost: KDFCost { KeychainSelection.costs[kdfCost] ?? .standard }

    var storeOptions: KeychainFileOptions { selection.storeOptions }

    func validate() throws {
        guard KeychainSelection.costs[kdfCost] != nil else {
            throw ValidationError("--kdf-cost is standard or testing.")
        }
        if keychain?.isEmpty == true {
            // errSecParam, as for any other bad keychain name, rather than ArgumentParser's usage error.
            reportError(KeychainError(.param, "-k names no keychain: give a keychain file or name."))
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// The keychain as a service: the agent's client when a per-user agent serves this keychain (unless
    /// `LATCHKEY_AGENT=off`), else the file opened in process as `open` does. Through the agent no
    /// credential is read, no key is loaded and no database is opened in this process.
    func service(
        unlock: Bool = true,
        promptOnControllingTerminal: Bool = false,
        ifMissing missing: MissingKeychain = .refuse
    ) throws -> any KeychainService {
        try selection.service(
            unlock: unlock,
            promptOnControllingTerminal: promptOnControllingTerminal,
            ifMissing: missing
        )
    }

    /// Refuses at once a keychain that does not exist and that `missing` does not create, before a command asks
    /// for anything else (an item's password at a prompt).
    func refuseIfMissing(_ missing: MissingKeychain) throws {
        try selection.refuseIfMissing(missing)
    }

    /// Opens the keychain, unlocking it from the environment or a prompt when it is locked; a missing keychain
    /// is refused, or created as `missing` says.
    ///
    /// - Parameters:
    ///   - unlock: Whether to prompt for the passphrase when the environment does not unlock it.
    ///   - credentials: Credentials given on the command line, tried before the environment's.
    ///   - promptOnControllingTerminal: Prompt on `/dev/tty` rather than standard input (for commands whose
    ///     standard input carries a protocol).
    ///   - missing: What to do when the file does not exist (refuse, unless the command writes).
    func open(
        unlock: Bool = true,
        credentials given: [UnlockCredential] = [],
        promptOnControllingTerminal: Bool = false,
        ifMissing missing: MissingKeychain = .refuse
    ) throws -> any KeychainService {
        try KeychainOpener.open(
            path: path,
            named: isNamed,
            options: storeOptions,
            unlock: unlock,
            credentials: given,
            promptOnControllingTerminal: promptOnControllingTerminal,
            ifMissing: missing
        )
    }
}

/// What a command does when the keychain it names does not exist (docs/cli.md, "Which keychain").
enum MissingKeychain {
    /// Refuse with errSecNoSuchKeychain (-25294), or errSecNoDefaultKeychain (-25307) for the default keychain
    /// when nothing named one, naming the file and `latchkey create-keychain`; nothing is created. Every command
    /// that reads, deletes, dumps, exports or verifies.
    case refuse
    /// Create it on first use when it is the default keychain (`$LATCHKEY_KEYCHAIN`, the one set with
    /// `default-keychain -s`, else the login keychain), whether or not `-k` names it; refuse any other. The
    /// commands that write items (`add-*-password`, `import`, `git-credential store`).
    case createDefault
}

/// Opens a keychain the way every command does; shared by `KeychainOptions` and the fast path (through
/// `KeychainSelection`).
enum KeychainOpener {
    /// Throws `KeychainName.missing(path, named:)` when `path` does not exist and `missing` does not create it
    /// there; `named` says whether the user named it (`KeychainName.isNamed(_:)`).
    static func refuseIfMissing(_ path: String, _ missing: MissingKeychain, named: Bool) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        guard case .createDefault = missing, path == KeychainConfig.effectiveDefault() else {
            throw KeychainName.missing(path, named: named)
        }
    }

    /// `path` as a service: the agent's client when an agent serves it, else `open(...)`.
    static func service(
        path: String,
        named: Bool,
        options: KeychainFileOptions,
        unlock: Bool = true,
        promptOnControllingTerminal: Bool = false,
        ifMissing missing: MissingKeychain = .refuse
    ) throws -> any KeychainService {
        if let agent = try KeychainContext.agent(serving: path) { return agent }
        return try open(
            path: path,
            named: named,
            options: options,
            unlock: unlock,
            promptOnControllingTerminal: promptOnControllingTerminal,
            ifMissing: missing
        )
    }

    /// Opens `path`, unlocking it from the given credentials, the environment or a prompt when it is locked.
    ///
    /// A missing file is refused (errSecNoSuchKeychain, or errSecNoDefaultKeychain for the unnamed default, naming
    /// it and `latchkey create-keychain`) unless
    /// `missing` is `.createDefault` and `path` is the default keychain: that one is created from the
    /// environment's credential, else a new passphrase asked twice on a terminal (the prompt names the file).
    static func open(
        path: String,
        named: Bool,
        options: KeychainFileOptions,
        unlock: Bool = true,
        credentials given: [UnlockCredential] = [],
        promptOnControllingTerminal: Bool = false,
        ifMissing missing: MissingKeychain = .refuse
    ) throws -> any KeychainService {
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists { try refuseIfMissing(path, missing, named: named) }
        var credentials = try given + UnlockCredential.fromEnvironment()
        if !exists && credentials.isEmpty {
            guard Terminal.isInteractive, !promptOnControllingTerminal else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "No keychain at \(path) and no passphrase source to create it with: set LATCHKEY_KEY_FILE or "
                        + "LATCHKEY_PASSPHRASE_FILE, run `latchkey create-keychain`, or run on a terminal."
                )
            }
            warn("no keychain at \(path) yet: creating it.")
            credentials = [.passphrase(try Terminal.newPassphrase(for: path))]
        }
        if !exists { try KeychainName.refuseEmptyPassphrase(credentials) }
        let service = try KeychainFile(path: path).open(
            credentials: credentials,
            createIfMissing: !exists,
            options: options
        )
        if unlock, try service.perform(.lockState).lockState() != .unlocked {
            if promptOnControllingTerminal {
                let passphrase = try Terminal.readSecretFromControllingTerminal(prompt: "Passphrase for \(path): ")
                _ = try service.perform(.unlock(.passphrase(passphrase)))
            } else if Terminal.isInteractive {
                _ = try service.perform(
                    .unlock(.passphrase(try Terminal.readSecret(prompt: "Passphrase for \(path): ")))
                )
            }
        }
        return service
    }
}
