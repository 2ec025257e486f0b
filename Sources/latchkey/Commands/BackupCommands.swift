import ArgumentParser
import Foundation
import Latchkey

/// Where an archive's passphrase comes from.
struct ArchivePassphraseOptions: ParsableArguments {
    @Flag(name: .customLong("passphrase-stdin"), help: "Read the archive passphrase from standard input.")
    var passphraseStdin = false
    @Option(name: .customLong("passphrase-file"), help: "Read the archive passphrase from this file.")
    var passphraseFile: String?

    func passphrase(confirm: Bool) throws -> SecretData {
        try SecretInput.archivePassphrase(fromStandardInput: passphraseStdin, file: passphraseFile, confirm: confirm)
    }
}

/// `export`: every item (attributes and secrets) into an archive encrypted under its own passphrase.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Back up the keychain's items to an encrypted archive.",
        discussion: """
            The archive (format in docs/cli.md) is encrypted with AES-256-GCM under a key derived with scrypt \
            from its own passphrase, asked twice on a terminal or read with --passphrase-stdin / \
            --passphrase-file. Items whose accessibility is ThisDeviceOnly never leave this machine: they are \
            left out and counted. Items of access groups this process does not hold are not seen. An item that \
            fails authentication (damaged or tampered) makes the export fail, naming it, and no archive is \
            written; with --skip-damaged the others are exported, each one left out is named on stderr and the \
            exit status is 65. Items keep their search tags (the Secret Service finds items through them), \
            except items whose tags were written before their text was kept in the record: those are \
            exported without tags and counted.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: [.customShort("o"), .customLong("output")], help: "The archive file to write (mode 0600).")
    var output: String
    @Flag(name: .customLong("force"), help: "Replace an existing archive file.") var force = false
    @OptionGroup var archivePassphrase: ArchivePassphraseOptions
    @OptionGroup var damage: DamagedItemOptions
    @OptionGroup var format: OutputOptions

    func run() throws {
        try runReportingErrors {
            if !force, FileManager.default.fileExists(atPath: output) {
                throw KeychainError(.duplicateItem, "\(output) already exists; give --force to replace it.")
            }
            try keychain.refuseIfMissing(.refuse)
            let passphrase = try archivePassphrase.passphrase(confirm: true)
            let service = try keychain.service()
            let progress = ProgressBar.start("export", enabled: !format.json)
            defer { progress?.finish() }
            // Items are read one at a time by persistent reference and encoded into the archive as they are read:
            // the export holds the encoded document, never every item (nor a whole class) at once. An item whose
            // row fails authentication (damaged or tampered, or not the row last stored) answers errSecDecode and
            // is collected: without --skip-damaged they are named and nothing is written.
            var writer = KeychainArchiveWriter()
            var damaged: [DamagedItem] = []
            var leftOut = 0
            var untaggable = 0
            progress?.update("listing items", fraction: 0.1)
            let references = try ItemClass.storable.map { ($0, try service.itemReferences($0)) }
            let total = references.reduce(0) { $0 + $1.1.count }
            var done = 0
            for (itemClass, classReferences) in references {
                for reference in classReferences {
                    if done % 128 == 0 {
                        progress?.update(
                            "reading items",
                            fraction: 0.1 + 0.8 * Double(done) / Double(max(total, 1)),
                            detail: ProgressBar.count(done, of: total)
                        )
                    }
                    done += 1
                    let found: FoundItem?
                    do {
                        found = try service.exportedItem(itemClass, reference: reference)
                    } catch KeychainError.Code.decode {
                        damaged.append(DamagedItem(itemClass: itemClass, persistentReference: reference))
                        continue
                    }
                    guard let item = found else { continue }
                    let code = item.attributes[.accessible]?.stringValue ?? ""
                    if Accessibility(rawValue: code)?.isThisDeviceOnly == true {
                        leftOut += 1
                    } else {
                        // Tags written before their text was kept come back as nil: exported without them.
                        if item.searchTags == nil { untaggable += 1 }
                        try writer.append(KeychainArchive.Item(item))
                    }
                }
            }
            try damage.refuse(damaged, action: "export")
            let exported = writer.count
            progress?.update("encrypting", fraction: 0.9, detail: "\(exported) items")
            let sealed = try writer.sealed(passphrase: passphrase, cost: keychain.cost)
            progress?.update("writing", fraction: 0.95)
            try SecureFile.write(sealed, to: output, replacing: force)
            progress?.finish()
            if format.json {
                try JSONValue.object([
                    "archive": .string(output),
                    "exported": .integer(Int64(exported)),
                    "thisDeviceOnlyLeftOut": .integer(Int64(leftOut)),
                    "searchTagsNotCarried": .integer(Int64(untaggable)),
                    "damagedSkipped": .array(damaged.map { .string($0.description) }),
                ]).print()
            } else {
                print("exported \(exported) items to \(output)")
                if leftOut > 0 { print("left out \(leftOut) ThisDeviceOnly items (they never leave this machine)") }
                if untaggable > 0 {
                    print(
                        "exported \(untaggable) items without their search tags (written before tags were kept "
                            + "readably; store them again to carry their tags)"
                    )
                }
            }
            try damage.finish(skipped: damaged)
        }
    }
}

/// `import`: merges an archive made by `export` into the keychain.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore an archive made by export, or import certificates, keys and PKCS#12 files.",
        discussion: """
            A file that starts with the archive magic (LKARCHV1) is restored as an archive; any other is read \
            as certificates and private keys, like `security import`: PEM (several blocks), DER, or PKCS#12 \
            (.p12, .pfx; passphrase from -P, else LATCHKEY_IMPORT_PASSPHRASE, else a no-echo prompt). \
            Items are merged: an item whose primary key (service and account; server, protocol, port, path \
            and account; ...) already exists is reported as a duplicate and left alone, unless --replace is \
            given. Creation and modification dates and search tags are kept. The items are written in one \
            transaction: all of them, or (on any error, such as a locked class) none. Archives written before \
            search tags were carried (content version 1) are still read. With --from gnome-keyring, the files \
            (default: every keyring of gnome-keyring) are gnome-keyring's keyrings, imported into the Secret \
            Service's collections (docs/install.md).
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Argument(help: "The archive, certificate, key or PKCS#12 file; with --from gnome-keyring, keyring files.")
    var files: [String] = []
    @OptionGroup var gnomeKeyring: GnomeKeyringImportOptions
    /// The one file to import (without `--from`).
    var archive: String { files.first ?? "" }
    @Flag(name: .customLong("replace"), help: "Overwrite existing items with the archive's.") var replace = false
    @OptionGroup var archivePassphrase: ArchivePassphraseOptions
    @OptionGroup var certificateOptions: CertificateImportOptions
    @OptionGroup var format: OutputOptions

    func validate() throws {
        if gnomeKeyring.from == nil && files.count != 1 {
            throw ValidationError("import takes one file (or --from gnome-keyring and keyring files).")
        }
    }

    func run() throws {
        try runReportingErrors {
            if gnomeKeyring.from != nil { return try importGnomeKeyring() }
            guard let file = FileManager.default.contents(atPath: archive) else {
                throw KeychainError(.param, "Cannot read \(archive).")
            }
            try keychain.refuseIfMissing(.createDefault)
            guard file.starts(with: Array("LKARCHV1".utf8)) else {
                try importCertificates(file)
                return
            }
            let contents = try KeychainArchive.open(file, passphrase: try archivePassphrase.passphrase(confirm: false))
            let service = try keychain.service(ifMissing: .createDefault)
            // One all-or-nothing batch: its progress is not known, so the bar shows a moving block and the time.
            let progress = ProgressBar.start("import", enabled: !format.json)
            defer { progress?.finish() }
            progress?.update("restoring items", fraction: nil, detail: "\(contents.items.count) items")
            let restores = contents.items.map { item in
                KeychainOperation.restore(
                    NewItem(item.itemClass, attributes: item.attributes, data: item.data, searchTags: item.searchTags),
                    replacingExisting: replace
                )
            }
            let outcomes = restores.isEmpty ? [] : try service.batch(restores)
            guard outcomes.count == contents.items.count else {
                throw KeychainError(
                    .internalComponent,
                    "The keychain answered an import with another number of outcomes."
                )
            }
            var added = 0
            var replaced = 0
            var duplicates: [KeychainArchive.Item] = []
            for (item, outcome) in zip(contents.items, outcomes) {
                guard case .restored(let restored) = outcome.storage else {
                    throw KeychainError(.internalComponent, "The keychain answered a restore with something else.")
                }
                switch restored {
                case .added: added += 1
                case .replaced: replaced += 1
                case .duplicate: duplicates.append(item)
                }
            }
            progress?.finish()
            if format.json {
                try JSONValue.object([
                    "imported": .integer(Int64(added)),
                    "replaced": .integer(Int64(replaced)),
                    "duplicates": .array(duplicates.map(Self.jsonKey)),
                ]).print()
                return
            }
            var out = "imported \(added) items"
            if replaced > 0 { out += ", replaced \(replaced)" }
            out += ", \(duplicates.count) duplicates left alone\n"
            for item in duplicates { out += "duplicate: \(Self.describe(item))\n" }
            ItemOutput.write(out)
        }
    }

    /// The attributes that identify an item to a person: class plus its string primary-key attributes.
    static func identifying(_ item: KeychainArchive.Item) -> [(AttributeName, AttributeValue)] {
        let names: [AttributeName] = [
            .service, .server, .protocol, .port, .path, .account, .label, .applicationTag, .securityDomain,
        ]
        return names.compactMap { name in
            guard let value = item.attributes[name] else { return nil }
            if let text = value.stringValue, text.isEmpty { return nil }
            if value.numberValue == 0 { return nil }
            return (name, value)
        }
    }

    static func describe(_ item: KeychainArchive.Item) -> String {
        ([item.itemClass.rawValue] + identifying(item).map { "\"\($0.0.rawValue)\"=\(AttributeText.render($0.1))" })
            .joined(separator: " ")
    }

    static func jsonKey(_ item: KeychainArchive.Item) -> JSONValue {
        .object([
            "class": .string(item.itemClass.rawValue),
            "attributes": .object(
                Dictionary(
                    uniqueKeysWithValues: identifying(item).map { ($0.0.rawValue, ItemOutput.json($0.1, of: $0.0)) }
                )
            ),
        ])
    }
}
