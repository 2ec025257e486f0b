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

    /// The refusal for a keychain that does not exist: errSecNoDefaultKeychain (-25307), naming the file and the
    /// command that creates it.
    static func missing(_ path: String) -> KeychainError {
        KeychainError(
            .noDefaultKeychain,
            "No keychain exists at \(path). Create it with `latchkey create-keychain \(path)` "
                + "(`latchkey list-keychains` shows the keychains there are)."
        )
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
