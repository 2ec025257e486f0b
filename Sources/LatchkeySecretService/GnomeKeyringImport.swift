import Foundation
import Latchkey

/// Imports gnome-keyring's keyrings into the Secret Service's collections in the keychain
/// (docs/install.md, "Moving from gnome-keyring: importing its keyrings").
///
/// Every item becomes a Secret Service item (`SecretItemStore`'s mapping) with its label, attributes (its
/// `xdg:schema` among them), secret, `Created` and `Modified`, in the collection of its keyring: `login` for
/// `login.keyring`, else a collection named after the file (made if needed, labelled with the keyring's label,
/// belonging to the user). gnome-keyring's `default` file points the `default` alias at its keyring's
/// collection unless Latchkey's `default` alias is already set. Imported items belong to the user
/// (`SecretCollections.userOwner`), not to the program that ran the import.
///
/// - Every file is decoded whole before anything is written; the items, the collection registry and the
///   marker are then written in one transaction (`KeychainOperation.batch`): all of it or, on any error,
///   nothing. The files are only read.
/// - An item of the same collection with the same attributes (an absent `xdg:schema` being the generic
///   schema), label and secret is a duplicate: it is left alone and counted, so a second import adds nothing.
/// - The marker (`hasImported(in:)`) is a record of the same access group (`vwht` =
///   `secret-service:gnome-keyring-import`) holding when the last import ran and which collection each keyring
///   went to; it is written with the items.
///
/// ```swift
/// let summary = try GnomeKeyringImport.importAll(
///     from: GnomeKeyringFile.defaultDirectory(), password: loginPassword, into: secretServiceKeychain)
/// ```
public enum GnomeKeyringImport {
    /// The marker record's `vwht`: not a digest, so never an item's.
    static let markerHint = "secret-service:gnome-keyring-import"

    /// Imports every keyring of `directory` (gnome-keyring's, `GnomeKeyringFile.defaultDirectory()`) that
    /// `password` opens, and the plain ones; what the agent offers at the first unlock with the login password.
    ///
    /// - Parameters:
    ///   - directory: The keyrings' directory; none there (or no directory) imports nothing.
    ///   - password: The password to try on every encrypted keyring.
    ///   - service: The keychain, seen with the Secret Service's access group (`SecretServiceBackend.keychain`).
    ///   - skipLocked: Whether a keyring that `password` does not open is skipped (and reported) rather than
    ///     failing the whole import.
    /// - Returns: What was imported.
    /// - Throws: `authFailed` (-25293) naming the keyring that `password` does not open (unless `skipLocked`),
    ///   `decode` (-26275) naming a damaged file, and what the keychain throws (`interactionNotAllowed` when it
    ///   is locked). Nothing is written then.
    public static func importAll(
        from directory: String,
        password: SecretData,
        into service: any KeychainService,
        skipLocked: Bool = true
    ) throws(KeychainError) -> Summary {
        let files = try GnomeKeyringFile.paths(in: directory).map { (path) throws(KeychainError) in
            try GnomeKeyringFile.read(path)
        }
        return try importFiles(
            files,
            password: password,
            defaultKeyring: GnomeKeyringFile.defaultKeyring(in: directory),
            skipLocked: skipLocked,
            into: service
        )
    }

    /// Imports `files`.
    ///
    /// - Parameters:
    ///   - files: The keyring files, read.
    ///   - password: The password to try on the encrypted ones (`nil` when none is encrypted).
    ///   - defaultKeyring: The keyring gnome-keyring's `default` file names, if any.
    ///   - skipLocked: Whether a keyring that `password` does not open is skipped rather than an error.
    ///   - service: The keychain, seen with the Secret Service's access group.
    /// - Returns: What was imported.
    /// - Throws: As `importAll(from:password:into:skipLocked:)`.
    public static func importFiles(
        _ files: [GnomeKeyringFile],
        password: SecretData?,
        defaultKeyring: String?,
        skipLocked: Bool,
        into service: any KeychainService
    ) throws(KeychainError) -> Summary {
        // 1. Every file decoded before anything is written.
        var opened: [(file: GnomeKeyringFile, keyring: GnomeKeyring?)] = []
        for file in files {
            do {
                opened.append((file, try file.open(password: password)))
            } catch  where error.code == .authFailed && skipLocked {
                opened.append((file, nil))
            }
        }
        // 2. The writes, planned against what the keychain holds.
        let store = SecretItemStore(service: service, didWrite: {})
        let originalRegistry = try store.loadCollections()
        var registry = originalRegistry
        var marker = try loadMarker(service) ?? Marker(importedAt: Date(), collections: [:])
        marker.importedAt = Date()
        var summary = Summary(keyrings: [], defaultAlias: nil)
        var operations: [KeychainOperation] = []
        var owners: [Int] = []
        var existing: [String: [(item: SecretItem, secret: SecretData?)]] = [:]
        var usedHints: Set<String> = []
        for (file, keyring) in opened {
            guard let keyring else {
                summary.keyrings.append(
                    Summary.Keyring(
                        path: file.path,
                        collection: nil,
                        label: file.name,
                        encrypted: file.isEncrypted,
                        items: 0,
                        imported: 0,
                        duplicates: 0,
                        skipped: true
                    )
                )
                continue
            }
            let collection = Self.collection(for: file, keyring: keyring, registry: &registry, marker: marker)
            marker.collections[file.name] = collection
            if existing[collection] == nil { existing[collection] = try Self.items(of: collection, in: service) }
            let index = summary.keyrings.count
            var entry = Summary.Keyring(
                path: file.path,
                collection: collection,
                label: keyring.label,
                encrypted: file.isEncrypted,
                items: keyring.items.count,
                imported: 0,
                duplicates: 0,
                skipped: false
            )
            let present = existing[collection] ?? []
            for item in keyring.items {
                if present.contains(where: { Self.isDuplicate(item, of: $0.item, secret: $0.secret) }) {
                    entry.duplicates += 1
                    continue
                }
                let record = SecretItemStore.Record(
                    attributes: item.attributes,
                    type: item.schemaType,
                    contentType: "text/plain",
                    owner: SecretCollections.userOwner,
                    collection: SecretItemStore.stored(collection),
                    tagged: true
                )
                var fields = try SecretItemStore.fields(of: record)
                let digest = SecretItemStore.digest(of: item.attributes, collection: record.collection)
                // Another item with this map (in the keychain or earlier in this import) may hold the digest.
                if usedHints.contains(digest) || present.contains(where: { $0.item.attributes == item.attributes }) {
                    fields[.syncViewHint] = .string(SecretItemStore.uniqueHint(of: record))
                } else {
                    usedHints.insert(digest)
                }
                fields[.label] = .string(item.label)
                fields[.creationDate] = .date(item.created)
                fields[.modificationDate] = .date(item.modified)
                fields[.accessGroup] = .string(SecretItemStore.accessGroup)
                let new = NewItem(
                    .genericPassword,
                    attributes: fields,
                    data: item.secret,
                    searchTags: SecretItemStore.tags(of: item.attributes, collection: collection)
                )
                operations.append(.restore(new, replacingExisting: false))
                owners.append(index)
            }
            summary.keyrings.append(entry)
        }
        if let defaultKeyring, let target = marker.collections[defaultKeyring],
            opened.contains(where: { $0.file.name == defaultKeyring && $0.keyring != nil }),
            registry.aliases["default"] == nil
        {
            if target != ObjectPath.login { registry.aliases["default"] = target }
            summary.defaultAlias = target
        }
        if registry != originalRegistry { operations.append(.upsert(try registryItem(registry))) }
        operations.append(.upsert(try markerItem(marker)))
        // 3. One transaction.
        let outcomes = try service.batch(operations)
        guard outcomes.count == operations.count else {
            throw KeychainError(.internalComponent, "The keychain answered the import with another number of outcomes.")
        }
        for (owner, outcome) in zip(owners, outcomes) {
            guard case .restored(let restored) = outcome.storage else {
                throw KeychainError(.internalComponent, "The keychain answered a restore with something else.")
            }
            if restored == .duplicate {
                summary.keyrings[owner].duplicates += 1
            } else {
                summary.keyrings[owner].imported += 1
            }
        }
        return summary
    }

    /// Whether an import has run in this keychain (its marker is there): the agent offers the import at the
    /// first unlock only when it has not.
    ///
    /// - Parameter service: The keychain, seen with the Secret Service's access group.
    /// - Throws: What the keychain throws (`interactionNotAllowed` while it is locked).
    public static func hasImported(in service: any KeychainService) throws(KeychainError) -> Bool {
        try loadMarker(service) != nil
    }

    // MARK: Planning

    /// The collection `file`'s keyring goes to: `login` for the login keyring; the one an earlier import chose,
    /// when it still exists; else gnome-keyring's own name for it (`GnomeKeyringFile.pathElement`, so its path
    /// stays the same) unless that is `session`, `aliases` or another application's collection, then a new name
    /// from the label. A collection of that name that belongs to the user is merged into.
    static func collection(
        for file: GnomeKeyringFile,
        keyring: GnomeKeyring,
        registry: inout SecretCollections,
        marker: Marker
    ) -> String {
        if file.name == ObjectPath.login { return ObjectPath.login }
        if let earlier = marker.collections[file.name], registry.exists(earlier) { return earlier }
        let label = keyring.label.isEmpty ? file.name : keyring.label
        var chosen = file.pathElement
        let taken = registry.collections[chosen].map { $0.owner != nil } ?? false
        if [ObjectPath.sessionCollection, "aliases"].contains(chosen) || taken {
            chosen = registry.newName(for: label)
        }
        if registry.collections[chosen] == nil {
            registry.collections[chosen] = SecretCollections.Info(label: label, created: keyring.created, owner: nil)
        }
        return chosen
    }

    /// The Secret Service items of `collection`, with their secrets (one request).
    static func items(
        of collection: String,
        in service: any KeychainService
    ) throws(KeychainError) -> [(item: SecretItem, secret: SecretData?)] {
        let found = try service.findAll(
            ItemQuery(.genericPassword, searchTags: SecretItemStore.queryTags(of: [:], collection: collection)),
            withData: true
        )
        return found.compactMap { found in
            guard let item = SecretItemStore.item(from: found), item.collection == collection else { return nil }
            return (item, found.data)
        }
    }

    /// Whether `item` duplicates `existing`: the same attributes (an absent `xdg:schema` being the generic
    /// schema), label and secret.
    static func isDuplicate(_ item: GnomeKeyring.Item, of existing: SecretItem, secret: SecretData?) -> Bool {
        existing.hasSameAttributes(as: item.attributes) && existing.label == item.label
            && (secret ?? SecretData([])) == item.secret
    }

    // MARK: Records

    /// The collection registry as `SecretItemStore.saveCollections` writes it.
    static func registryItem(_ registry: SecretCollections) throws(KeychainError) -> NewItem {
        NewItem(
            .genericPassword,
            attributes: [
                .service: .string(""), .account: .string(""), .syncViewHint: .string(SecretItemStore.registryHint),
                .generic: .data(try encode(registry)), .label: .string("Secret Service collections"),
                .accessGroup: .string(SecretItemStore.accessGroup),
            ]
        )
    }

    /// The marker record.
    static func markerItem(_ marker: Marker) throws(KeychainError) -> NewItem {
        NewItem(
            .genericPassword,
            attributes: [
                .service: .string(""), .account: .string(""), .syncViewHint: .string(markerHint),
                .generic: .data(try encode(marker)), .label: .string("gnome-keyring import"),
                .accessGroup: .string(SecretItemStore.accessGroup),
            ]
        )
    }

    /// The marker, or `nil` when no import has run.
    static func loadMarker(_ service: any KeychainService) throws(KeychainError) -> Marker? {
        let found = try service.findAll(
            ItemQuery(.genericPassword, attributes: [.syncViewHint: .string(markerHint)])
        )
        guard let first = found.first else { return nil }
        guard let bytes = SecretItemStore.genericBytes(of: first) else { return nil }
        do {
            return try JSONDecoder().decode(Marker.self, from: bytes)
        } catch {
            throw KeychainError(.decode, "The record of the last gnome-keyring import is unreadable.")
        }
    }

    private static func encode(_ value: some Encodable) throws(KeychainError) -> Data {
        let encoder = JSONEncoder()
        // The registry's encoding (dates as Foundation's default), so that the agent reads it as its own.
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(value)
        } catch {
            throw KeychainError(.param, "The import's records cannot be encoded.")
        }
    }
}
