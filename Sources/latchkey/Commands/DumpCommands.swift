import ArgumentParser
import Foundation
import Latchkey
import LatchkeySecurity

extension KeychainService {
    /// Every item of `itemClass` visible to this process (synchronizable or not), oldest first; empty when none.
    /// With `withSearchTags`, each item's search tags are read back too (`export`).
    func allItems(_ itemClass: ItemClass, withData: Bool, withSearchTags: Bool = false) throws -> [FoundItem] {
        try ignoringNotFound {
            // Damaged items were named (or refused) before this listing: skip them here.
            try perform(
                .find(
                    FindRequest(
                        ItemQuery(itemClass, synchronizable: .any),
                        limit: .all,
                        withData: withData,
                        corruptRows: .skip,
                        withSearchTags: withSearchTags
                    )
                )
            ).items()
        } ?? []
    }
}

extension KeychainService {
    /// The persistent references of every item of `itemClass` visible to this process, from the search index
    /// alone (no record opened); empty when none.
    func itemReferences(_ itemClass: ItemClass) throws -> [Data] {
        try ignoringNotFound {
            try perform(
                .find(FindRequest(ItemQuery(itemClass, synchronizable: .any), limit: .all, referencesOnly: true))
            ).items().map(\.persistentReference)
        } ?? []
    }

    /// The item of `itemClass` with persistent reference `reference`, with its secret and search tags; `nil` when
    /// it is gone.
    ///
    /// - Throws: `decode` (-26275) when its row fails authentication (damaged or tampered, or not the row the
    ///   keychain last stored), as `damagedItems(_:includingSecrets:)` would name it.
    func exportedItem(_ itemClass: ItemClass, reference: Data) throws -> FoundItem? {
        try ignoringNotFound {
            try perform(
                .find(
                    FindRequest(
                        ItemQuery(itemClass, synchronizable: .any, persistentReference: reference),
                        limit: .one,
                        withData: true,
                        corruptRows: .report,
                        withSearchTags: true
                    )
                )
            ).items().first
        } ?? nil
    }
}

/// `dump-keychain`: every item's attributes; secrets only with `-d`.
struct DumpKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain",
        abstract: "Show every item's attributes (and secrets with -d).",
        discussion: """
            Secrets are shown only with -d (--secrets), or with -r as raw bytes in hex (Latchkey never prints an \
            item's ciphertext, so -r is -d without the text form). -a adds an access: block per item: its access \
            group, accessibility and access-control constraints. --json prints an array of item objects. An item that \
            fails authentication (damaged or tampered) makes the command fail, naming it, before anything is \
            printed; with --skip-damaged the others are shown, each one left out is named on stderr and the \
            exit status is 65.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Flag(name: [.customShort("d"), .customLong("secrets")], help: "Also show each item's secret data.")
    var secrets = false
    @Flag(
        name: .customShort("r"),
        help:
            "Show each item's secret as raw bytes in hex, never as text (implies -d; Latchkey never prints ciphertext)."
    )
    var raw = false
    @Flag(name: .customShort("a"), help: "Show each item's access: group, accessibility and access control.")
    var access = false
    @OptionGroup var damage: DamagedItemOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            // Through the agent when one serves the keychain: no credential, no key, no database here.
            let service = try keychain.service()
            let path = service.keychainPath ?? keychain.path
            let secrets = secrets || raw
            let progress = ProgressBar.start("dump-keychain", enabled: !output.json)
            defer { progress?.finish() }
            progress?.update("checking items", fraction: 0)
            let damaged = try damage.damagedItems(in: service, includingSecrets: secrets, action: "dump")
            var items: [FoundItem] = []
            for (index, itemClass) in ItemClass.storable.enumerated() {
                progress?.update(
                    "reading items",
                    fraction: 0.1 + 0.4 * Double(index) / Double(ItemClass.storable.count),
                    detail: "\(items.count) read"
                )
                items += try service.allItems(itemClass, withData: secrets)
            }
            if output.json {
                try JSONValue.array(
                    items.map { item in
                        var json = ItemOutput.json(item, keychain: path, secretKey: "data")
                        if case .object(var fields) = json {
                            if access { fields["access"] = ItemAccess.json(item) }
                            if raw, let data = item.data {
                                fields["data"] = .object(["base64": .string(data.data.base64EncodedString())])
                            }
                            json = .object(fields)
                        }
                        return json
                    }
                ).print()
            } else {
                var out = ""
                for (done, item) in items.enumerated() {
                    if done % 256 == 0 {
                        progress?.update(
                            "formatting items",
                            fraction: 0.5 + 0.5 * Double(done) / Double(items.count),
                            detail: ProgressBar.count(done, of: items.count)
                        )
                    }
                    out += ItemOutput.human(item, keychain: path)
                    if access { out += ItemAccess.human(item) }
                    if raw {
                        out +=
                            "data:\n"
                            + (item.data.map { "0x" + $0.data.map { String(format: "%02X", $0) }.joined() } ?? "")
                            + "\n"
                    } else if secrets {
                        out += "data:\n" + (item.data.map(ItemOutput.humanSecret) ?? "") + "\n"
                    }
                }
                progress?.finish()
                ItemOutput.write(out)
            }
            try damage.finish(skipped: damaged)
        }
    }
}

/// `find-certificate`: certificates by label, printed as attributes, PEM or JSON.
struct FindCertificate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-certificate",
        abstract: "Find certificates.",
        discussion: "Without -a only the first match is shown. Exits 44 when none matches."
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("c"), help: "Match certificates whose label contains this text.") var name: String?
    @Option(name: .customShort("l"), help: "Match the label exactly.") var label: String?
    @Option(name: .customShort("e"), help: "Match certificates whose alias (e-mail address) contains this text.")
    var email: String?
    @Flag(name: .customShort("a"), help: "Show every match.") var all = false
    @Flag(name: .customShort("p"), help: "Print the certificates in PEM format.") var pem = false
    @Flag(name: .customShort("Z"), help: "Print each certificate's SHA-1 hash (as delete-certificate -Z takes it).")
    var sha1 = false
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open()
            var query = ItemQuery(.certificate, synchronizable: .any)
            if let label { query.attributes[.label] = .string(label) }
            var matches = try ignoringNotFound { try store.find(query, limit: .all, withData: true) } ?? []
            matches = matches.filter { item in
                if let name, !(item.attributes[.label]?.stringValue ?? "").contains(name) { return false }
                if let email, !(item.attributes[.alias].flatMap(Self.text) ?? "").contains(email) { return false }
                return true
            }
            if !all { matches = Array(matches.prefix(1)) }
            guard !matches.isEmpty else {
                throw KeychainError(.itemNotFound, KeychainError.Code.itemNotFound.statusMessage)
            }
            if output.json {
                try JSONValue.array(matches.map { ItemOutput.json($0, keychain: keychain.path, secretKey: "der") })
                    .print()
                return
            }
            var out = ""
            for item in matches {
                if sha1, let summary = ImportableItems.summary(der: item.data?.data ?? Data()) {
                    out += "SHA-1 hash: \(summary.sha1)\n"
                }
                if pem {
                    let base64 = (item.data?.data ?? Data()).base64EncodedString(options: [.lineLength64Characters])
                    out += "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
                } else {
                    var shown = item
                    shown.data = nil
                    out += ItemOutput.human(shown, keychain: keychain.path)
                }
            }
            ItemOutput.write(out)
        }
    }

    static func text(_ value: AttributeValue) -> String? {
        value.stringValue ?? value.dataValue.flatMap { String(data: $0, encoding: .utf8) }
    }
}

/// `find-key`: cryptographic keys by label, type, class or tag (attributes only, never key material).
struct FindKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-key",
        abstract: "Find keys (attributes only).",
        discussion:
            "Key material is never printed. Without -a only the first match is shown. Exits 44 when none matches."
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("l"), help: "Label.") var label: String?
    @Option(name: .customShort("t"), help: "Key type: rsa, ec, aes, or Apple's number (42, 73, ...).") var type: String?
    @Option(name: .customShort("c"), help: "Key class: public, private or symmetric.") var keyClass: String?
    @Option(name: .customShort("s"), help: "Key size in bits.") var size: Int?
    @Option(name: .customLong("tag"), help: "Application tag (as UTF-8 text).") var tag: String?
    @Flag(name: .customShort("a"), help: "Show every match.") var all = false
    @OptionGroup var output: OutputOptions

    static let types: [String: Int64] = ["rsa": 42, "ec": 73, "ecsecprimerandom": 73, "aes": 2_147_483_649]
    static let classes: [String: Int64] = ["public": 0, "private": 1, "symmetric": 2]

    func validate() throws {
        if let type, Self.types[type.lowercased()] == nil, Int64(type) == nil {
            throw ValidationError("Unknown key type '\(type)'.")
        }
        if let keyClass, Self.classes[keyClass.lowercased()] == nil {
            throw ValidationError("The key class must be public, private or symmetric.")
        }
    }

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open()
            var query = ItemQuery(.key, synchronizable: .any)
            if let label { query.attributes[.label] = .string(label) }
            if let type { query.attributes[.keyType] = .number(Self.types[type.lowercased()] ?? Int64(type) ?? 0) }
            if let keyClass { query.attributes[.keyClass] = .number(Self.classes[keyClass.lowercased()] ?? 0) }
            if let size { query.attributes[.keySizeInBits] = .number(Int64(size)) }
            if let tag { query.attributes[.applicationTag] = .data(Data(tag.utf8)) }
            let matches = try store.find(query, limit: all ? .all : .one, withData: false)
            if output.json {
                try JSONValue.array(matches.map { ItemOutput.json($0, keychain: keychain.path) }).print()
                return
            }
            ItemOutput.write(matches.map { ItemOutput.human($0, keychain: keychain.path) }.joined())
        }
    }
}
