import Foundation
import Latchkey

/// One gnome-keyring keyring file, read into memory (opened read-only; the file is never written), before it
/// is decoded.
///
/// ```swift
/// let files = try GnomeKeyringFile.all(in: GnomeKeyringFile.defaultDirectory())
/// let needsPassword = files.contains(where: \.isEncrypted)
/// ```
public struct GnomeKeyringFile: Sendable {
    /// The file's path.
    public let path: String
    /// The keyring's name: the file's name without `.keyring` (gnome-keyring's collection name; `login` for
    /// the login keyring).
    public let name: String
    /// Whether it is in the encrypted binary format (it needs its password); `false` for the plain format.
    public let isEncrypted: Bool
    let bytes: [UInt8]

    /// Reads `path` (read-only).
    ///
    /// - Throws: `io` (-36) when it cannot be read; `decode` (-26275) when it is in neither of gnome-keyring's
    ///   formats.
    public static func read(_ path: String) throws(KeychainError) -> GnomeKeyringFile {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw KeychainError(
                .io,
                "Cannot read the gnome-keyring keyring \(path): check that it exists and is yours."
            )
        }
        defer { try? handle.close() }
        let contents: Data
        do {
            contents = try handle.readToEnd() ?? Data()
        } catch {
            throw KeychainError(.io, "Cannot read the gnome-keyring keyring \(path): \(error.localizedDescription).")
        }
        let bytes = [UInt8](contents)
        var name = (path as NSString).lastPathComponent
        if name.hasSuffix(".keyring") { name.removeLast(".keyring".count) }
        if GnomeKeyringBinary.isBinary(bytes) {
            return GnomeKeyringFile(path: path, name: name, isEncrypted: true, bytes: bytes)
        }
        guard GnomeKeyringTextual.isTextual(bytes) else {
            throw GnomeKeyringBuffer([], path: path).damaged(
                "it is neither gnome-keyring's encrypted format nor its plain one"
            )
        }
        return GnomeKeyringFile(path: path, name: name, isEncrypted: false, bytes: bytes)
    }

    /// Decodes the whole keyring; `password` opens an encrypted one (a plain one needs none).
    ///
    /// - Throws: `authFailed` (-25293) when the file is encrypted and `password` is `nil` or does not open it;
    ///   `decode` (-26275) when it is damaged. Both name the file.
    func open(password: SecretData?) throws(KeychainError) -> GnomeKeyring {
        guard isEncrypted else { return try GnomeKeyringTextual.read(bytes, path: path) }
        guard let password else {
            throw KeychainError(
                .authFailed,
                "The gnome-keyring keyring \(path) is encrypted and no password was given for it."
            )
        }
        return try GnomeKeyringBinary.read(bytes, password: password, path: path)
    }

    /// The collection's object-path element in gnome-keyring: the keyring's name with every byte other than an
    /// ASCII letter or digit written `_` and two hex digits (`Work_Stuff` → `Work_5fStuff`), as
    /// `gkd_secret_util_build_path` writes it; Latchkey names the imported collection the same, so its path does
    /// not change.
    public var pathElement: String {
        var element = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                element.append(Character(Unicode.Scalar(byte)))
            default:
                element += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return element
    }

    /// gnome-keyring's directory: `$XDG_DATA_HOME/keyrings`, else `~/.local/share/keyrings`.
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/keyrings" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/keyrings"
    }

    /// The paths of the keyrings in `directory` (every `*.keyring`, by name); none when the directory does not
    /// exist. `user.keystore` and `default` are not keyrings.
    ///
    /// - Throws: `io` when the directory exists but cannot be listed.
    public static func paths(in directory: String) throws(KeychainError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".keyring") && $0 != ".keyring" }
                .sorted()
                .map { directory + "/" + $0 }
        } catch {
            throw KeychainError(
                .io,
                "Cannot list the gnome-keyring directory \(directory): \(error.localizedDescription)."
            )
        }
    }

    /// The keyring the `default` file of `directory` names (gnome-keyring's `default` alias), or `nil` when
    /// there is none.
    public static func defaultKeyring(in directory: String) -> String? {
        guard let data = FileManager.default.contents(atPath: directory + "/default"),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }
}

extension String {
    /// The string with `0` in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
