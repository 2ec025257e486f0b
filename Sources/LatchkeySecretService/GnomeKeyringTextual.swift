import Foundation
import Latchkey

/// gnome-keyring's plain keyring format (a keyring whose password is empty), as its
/// `pkcs11/secret-store/gkm-secret-textual.c` writes it: a GLib key file.
///
/// ```
/// [keyring]
/// display-name=Plain
/// ctime=1795848708
/// mtime=0
///
/// [1]
/// item-type=0
/// display-name=P one
/// secret=p1                  (or binary-secret=<hex> when the secret is not UTF-8)
/// mtime=1795848708
/// ctime=1795848708
///
/// [1:attribute0]
/// name=service
/// type=string                (or uint32)
/// value=p.com
/// ```
///
/// The first group must be `keyring`; every group without `:` is an item, its attributes the groups
/// `<id>:attribute<n>` and its access list `<id>:acl<n>` (not imported: Latchkey's confinement replaces it).
/// Values are read as `g_key_file_get_string` reads them (`\s`, `\n`, `\t`, `\r`, `\\` unescaped); a line that
/// is neither a group, a comment nor `key=value` makes the file damaged, as it makes GLib refuse it.
enum GnomeKeyringTextual {
    /// Whether `bytes` look like a plain keyring: UTF-8 whose first group is `[keyring]`.
    static func isTextual(_ bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            return trimmed == "[keyring]"
        }
        return false
    }

    /// Reads the whole keyring in `bytes`.
    ///
    /// - Throws: `decode` naming `path` when it is not a plain keyring or a line cannot be read.
    static func read(_ bytes: [UInt8], path: String) throws(KeychainError) -> GnomeKeyring {
        let damage = GnomeKeyringBuffer([], path: path)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw damage.damaged("it is not UTF-8 text") }
        let file = try parse(text, damage: damage)
        guard file.order.first == "keyring" else { throw damage.damaged("its first group is not [keyring]") }
        let keyring = file.groups["keyring"] ?? [:]
        var items: [GnomeKeyring.Item] = []
        for group in file.order where group != "keyring" && !group.contains(":") {
            let fields = file.groups[group] ?? [:]
            var attributes: [String: String] = [:]
            let prefix = group + ":attribute"
            for attributeGroup in file.order where attributeGroup.hasPrefix(prefix) {
                let attribute = file.groups[attributeGroup] ?? [:]
                guard let name = try string(attribute["name"], damage: damage), !name.hasPrefix("gkr:compat:") else {
                    continue
                }
                if attribute["type"] == "uint32" {
                    // gnome-keyring keeps a uint32 attribute only when its value is a number.
                    if let value = attribute["value"].flatMap({ UInt64($0) }) {
                        attributes[name] = String(UInt32(truncatingIfNeeded: value))
                    }
                } else {
                    attributes[name] = try string(attribute["value"], damage: damage) ?? ""
                }
            }
            var secret = SecretData([])
            if let value = try string(fields["secret"], damage: damage) {
                secret = SecretData(string: value)
            } else if let hex = fields["binary-secret"] {
                guard let decoded = decodeHex(hex) else { throw damage.damaged("a binary secret is not hex") }
                secret = SecretData(decoded)
            }
            let type = fields["item-type"].flatMap { UInt32($0) } ?? 0
            items.append(
                GnomeKeyring.Item(
                    id: UInt32(group) ?? 0,
                    type: type,
                    label: try string(fields["display-name"], damage: damage) ?? "",
                    attributes: GnomeKeyring.Item.withSchema(attributes, type: type),
                    secret: secret,
                    created: Date(gnomeKeyringSeconds: fields["ctime"].flatMap { UInt64($0) } ?? 0),
                    modified: Date(gnomeKeyringSeconds: fields["mtime"].flatMap { UInt64($0) } ?? 0)
                )
            )
        }
        return GnomeKeyring(
            label: try string(keyring["display-name"], damage: damage) ?? "",
            created: Date(gnomeKeyringSeconds: keyring["ctime"].flatMap { UInt64($0) } ?? 0),
            modified: Date(gnomeKeyringSeconds: keyring["mtime"].flatMap { UInt64($0) } ?? 0),
            items: items
        )
    }

    /// A key file's groups (in order of first appearance) and their raw values (the last one of a key wins).
    private struct KeyFile {
        var order: [String] = []
        var groups: [String: [String: String]] = [:]
    }

    private static func parse(_ text: String, damage: GnomeKeyringBuffer) throws(KeychainError) -> KeyFile {
        var file = KeyFile()
        var current: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                let closed = trimmed.trimmingCharacters(in: .whitespaces)
                guard closed.hasSuffix("]"), closed.count >= 3 else {
                    throw damage.damaged("line \(index + 1) is not a group header")
                }
                let name = String(closed.dropFirst().dropLast())
                if file.groups[name] == nil {
                    file.order.append(name)
                    file.groups[name] = [:]
                }
                current = name
                continue
            }
            guard let current, let equals = trimmed.firstIndex(of: "=") else {
                throw damage.damaged("line \(index + 1) is neither a group nor key=value")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw damage.damaged("line \(index + 1) has no key") }
            // A localized key (`name[de]`) is not gnome-keyring's: ignored, as GLib ignores it for this lookup.
            if key.hasSuffix("]") { continue }
            let value = trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            file.groups[current, default: [:]][key] = String(value)
        }
        return file
    }

    /// `raw` unescaped as `g_key_file_get_string` does (`\s` space, `\n`, `\t`, `\r`, `\\`); `nil` for `nil`.
    private static func string(_ raw: String?, damage: GnomeKeyringBuffer) throws(KeychainError) -> String? {
        guard let raw else { return nil }
        guard raw.contains("\\") else { return raw }
        var result = ""
        var escaped = false
        for character in raw {
            if escaped {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\\": result.append("\\")
                default: result.append("\\"); result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }

    private static func decodeHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
