import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// How the CLI turns what the user typed (`-k`, a NAME argument, `$LATCHKEY_KEYCHAIN`) into a keychain path,
/// and what it says when that keychain does not exist.
enum KeychainName {
    /// The absolute, symlink-free path of a keychain file or name.
    ///
    /// A bare name (`work`) is `<data dir>/work.keychain-db`, as `KeychainLocation.resolve` says; a path with a
    /// slash is made absolute against the current directory and its symbolic links are resolved, so the same
    /// keychain reads the same from every directory (and in `keychains.json`).
    ///
    /// - Throws: `param` (-50) for an empty name, which would otherwise mean `<data dir>/.keychain-db`.
    static func resolve(_ name: String) throws -> String {
        guard !name.isEmpty else {
            throw KeychainError(.param, "The keychain name is empty: give a keychain file or name.")
        }
        return canonical(KeychainLocation.resolve(name))
    }

    /// `path` made absolute, with `.` and `..` removed and every symbolic link in it resolved; the part that
    /// does not exist yet (a keychain about to be created, its directory) is appended as written.
    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return resolvingExistingPrefix(absolute)
    }

    private static func resolvingExistingPrefix(_ absolute: String) -> String {
        if let resolved = realpath(absolute, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parent = (absolute as NSString).deletingLastPathComponent
        let last = (absolute as NSString).lastPathComponent
        guard !parent.isEmpty, parent != absolute else { return absolute }
        let base = resolvingExistingPrefix(parent)
        switch last {
        case "", ".": return base
        case "..": return (base as NSString).deletingLastPathComponent
        default: return base == "/" ? "/" + last : base + "/" + last
        }
    }

    /// The refusal for a keychain that does not exist, naming the file and the command that creates it.
    ///
    /// A keychain that was named (`-k`, a keychain argument, `$LATCHKEY_KEYCHAIN`) is errSecNoSuchKeychain
    /// (-25294), as Apple answers a keychain path that does not exist; the default keychain, when nothing named
    /// one, is errSecNoDefaultKeychain (-25307).
    ///
    /// - Parameters:
    ///   - path: The keychain's absolute path.
    ///   - named: Whether the user named it (`isNamed(_:)`), rather than it being the default.
    static func missing(_ path: String, named: Bool) -> KeychainError {
        KeychainError(
            named ? .noSuchKeychain : .noDefaultKeychain,
            "No keychain exists at \(path). Create it with `latchkey create-keychain \(path)` "
                + "(`latchkey list-keychains` shows the keychains there are)."
        )
    }

    /// Whether a keychain was named: by `option` (`-k`, a trailing keychain argument, a NAME argument) or by
    /// `$LATCHKEY_KEYCHAIN`; `false` when the keychain is the default set with `default-keychain -s` or the login
    /// keychain.
    static func isNamed(
        _ option: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        if let option, !option.isEmpty { return true }
        return environment["LATCHKEY_KEYCHAIN"].map { !$0.isEmpty } ?? false
    }

    /// Refuses an empty passphrase among `credentials`: a keychain protected by nothing is not created.
    ///
    /// - Throws: `param` (-50), saying how to protect a keychain without a passphrase (a key file).
    static func refuseEmptyPassphrase(_ credentials: [UnlockCredential]) throws {
        for case .passphrase(let passphrase) in credentials where passphrase.isEmpty {
            throw KeychainError(
                .param,
                "The passphrase is empty. Give a passphrase, or protect the keychain with a key file alone "
                    + "(--new-key-file FILE, or LATCHKEY_KEY_FILE)."
            )
        }
    }
}
