import Foundation
import LatchkeyCrypto

/// The one limit on the size of a keychain item, the same on every path (in process, through the agent,
/// the CLI, the Secret Service): an item's secret holds at most `maximumSecretBytes` (8 MiB), and its
/// attribute values and search tags together at most `maximumAttributeBytes` (1 MiB).
///
/// The engine checks every item it writes (add, upsert, restore: first of all; an update: its new secret and
/// the attributes as they will be stored); the agent's client checks the items of a request the same way
/// before sending it, so an item over the limit gets the same `param` (-50) error and message with and
/// without the agent. Items written before the limit existed stay readable.
/// The agent's frame limit (`AgentFrame.maximumLength`) is derived from these two.
///
/// ```swift
/// try Keychain(service: "com.example.app").set(Data(count: 20 << 20), forKey: "blob")
/// // throws KeychainError(-50): "The secret is 20 971 520 bytes; a keychain item holds at most 8 388 608 bytes. ..."
/// ```
public enum ItemSizeLimit {
    /// The most bytes an item's secret may hold: 8 MiB.
    public static let maximumSecretBytes = 8 << 20

    /// The most bytes an item's attribute values and search tags may hold together: 1 MiB.
    public static let maximumAttributeBytes = 1 << 20

    /// The most bytes one item counts against the limits: `maximumSecretBytes + maximumAttributeBytes`.
    public static let maximumItemBytes = maximumSecretBytes + maximumAttributeBytes

    /// The bytes an item's attribute values and search tags count against `maximumAttributeBytes`: a
    /// string's UTF-8 bytes, data's bytes, 8 for a number or a date; attribute names are not counted.
    package static func attributeSize(_ attributes: [AttributeName: AttributeValue], searchTags: [String]) -> Int {
        var total = 0
        for value in attributes.values {
            switch value {
            case .string(let text): total += text.utf8.count
            case .data(let bytes): total += bytes.count
            case .number, .double, .date: total += 8
            }
        }
        for tag in searchTags { total += tag.utf8.count }
        return total
    }

    /// Refuses a secret over `maximumSecretBytes` or attributes over `maximumAttributeBytes`.
    ///
    /// - Throws: `param` (-50) naming the size and the limit.
    package static func check(
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String] = []
    ) throws(KeychainError) {
        let secret = data?.count ?? 0
        if secret > maximumSecretBytes {
            throw KeychainError(
                .param,
                "The secret is \(grouped(secret)) bytes; a keychain item holds at most "
                    + "\(grouped(maximumSecretBytes)) bytes. Store a smaller secret (for large data, keep the data "
                    + "in a file and its key in the keychain)."
            )
        }
        let attributeBytes = attributeSize(attributes, searchTags: searchTags)
        if attributeBytes > maximumAttributeBytes {
            throw KeychainError(
                .param,
                "The item's attributes and search tags are \(grouped(attributeBytes)) bytes; a keychain item's "
                    + "attributes hold at most \(grouped(maximumAttributeBytes)) bytes. Store smaller attribute "
                    + "values (the secret may hold up to \(grouped(maximumSecretBytes)) bytes)."
            )
        }
    }

    /// Refuses a new item over `maximumBytes` (see `check(attributes:data:searchTags:)`).
    package static func check(_ item: NewItem) throws(KeychainError) {
        try check(attributes: item.attributes, data: item.data, searchTags: item.searchTags)
    }

    /// Refuses changes whose own values are over `maximumBytes` (the engine then checks the updated item).
    package static func check(_ changes: ItemChanges) throws(KeychainError) {
        try check(attributes: changes.attributes, data: changes.data, searchTags: changes.searchTags ?? [])
    }

    /// `count` in groups of three digits separated by spaces: `20 971 520`.
    package static func grouped(_ count: Int) -> String {
        var digits = String(count)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(Substring(digits), at: 0)
        return groups.joined(separator: " ")
    }
}
