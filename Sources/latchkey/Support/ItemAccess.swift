import Latchkey

/// What `dump-keychain -a` prints for an item: `security`'s `access:` block, simplified to what guards a
/// Latchkey item (its access group, accessibility and `kSecAttrAccessControl` constraints).
enum ItemAccess {
    /// Apple's `SecAccessControlCreateFlags` bits and their names.
    static let flagNames: [(UInt64, String)] = [
        (1 << 0, "userPresence"), (1 << 1, "biometryAny"), (1 << 3, "biometryCurrentSet"),
        (1 << 4, "devicePasscode"), (1 << 5, "companion"), (1 << 14, "or"), (1 << 15, "and"),
        (1 << 30, "privateKeyUsage"), (1 << 31, "applicationPassword"),
    ]

    /// The constraint names of `item`'s access control, in bit order; empty when it has none.
    static func constraints(_ item: FoundItem) -> [String] {
        let record = AccessControlRecord(of: item.attributes)
        return flagNames.filter { record.flags & $0.0 != 0 }.map(\.1)
    }

    /// The `access:` block.
    static func human(_ item: FoundItem) -> String {
        let group = item.attributes[.accessGroup]?.stringValue ?? ""
        let record = AccessControlRecord(of: item.attributes)
        let constraints = constraints(item)
        return "access:\n"
            + "    group: \"\(group)\"\n"
            + "    accessible: \"\(record.protection)\"\n"
            + "    constraints: \(constraints.isEmpty ? "none" : constraints.joined(separator: ", "))\n"
    }

    /// The `access` object of `--json`.
    static func json(_ item: FoundItem) -> JSONValue {
        .object([
            "group": .string(item.attributes[.accessGroup]?.stringValue ?? ""),
            "accessible": .string(AccessControlRecord(of: item.attributes).protection),
            "constraints": .array(constraints(item).map(JSONValue.string)),
        ])
    }
}
