import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// Encrypts items into rows and decrypts rows back, binding every ciphertext to its row.
///
/// Associated data: the item key is bound to (table, persistref); the attribute record to
/// (table, persistref, primary-key hash, class token); the secret to (table, persistref). Moving any
/// blob to another row, or editing the row's key columns, makes decryption fail.
enum ItemCrypto {
    /// The parts of a context: up to four byte strings, concatenated.
    typealias ContextParts = (Data, Data, Data, Data)

    static func itemKeyContext(_ table: ItemTable, _ persistref: Data) -> Data {
        joined(itemKeyParts(table, persistref))
    }

    static func attributesContext(_ table: ItemTable, _ row: ItemRow) -> Data {
        joined(attributesParts(table, row))
    }

    static func secretContext(_ table: ItemTable, _ persistref: Data) -> Data {
        joined(secretParts(table, persistref))
    }

    private static func itemKeyParts(_ table: ItemTable, _ persistref: Data) -> ContextParts {
        (ContextPrefixes.of(table).itemKey, persistref, Data(), Data())
    }

    private static func attributesParts(_ table: ItemTable, _ row: ItemRow) -> ContextParts {
        (ContextPrefixes.of(table).attributes, row.persistref, row.primaryKey, row.tokens["kc"] ?? Data())
    }

    private static func secretParts(_ table: ItemTable, _ persistref: Data) -> ContextParts {
        (ContextPrefixes.of(table).secret, persistref, Data(), Data())
    }

    /// The concatenated context as `Data` (the write path).
    private static func joined(_ parts: ContextParts) -> Data {
        var out = Data(count: parts.0.count + parts.1.count + parts.2.count + parts.3.count)
        out.withUnsafeMutableBytes { copy(parts, into: $0) }
        return out
    }

    /// Copies the parts one after another into `buffer`, which holds exactly their total length.
    private static func copy(_ parts: ContextParts, into buffer: UnsafeMutableRawBufferPointer) {
        guard let target = buffer.baseAddress else { return }
        var offset = 0
        func copy(_ part: Data) {
            part.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress else { return }
                (target + offset).copyMemory(from: source, byteCount: bytes.count)
            }
            offset += part.count
        }
        copy(parts.0)
        copy(parts.1)
        copy(parts.2)
        copy(parts.3)
    }

    /// Calls `body` with the context assembled on the stack (the item paths: no allocation for it).
    private static func withContext<R>(
        _ parts: ContextParts,
        _ body: (UnsafeRawBufferPointer) throws(LatchkeyCrypto.CryptoError) -> R
    ) throws(LatchkeyCrypto.CryptoError) -> R {
        let length = parts.0.count + parts.1.count + parts.2.count + parts.3.count
        let result: Result<R, LatchkeyCrypto.CryptoError> = withUnsafeTemporaryAllocation(
            byteCount: length,
            alignment: 1
        ) { buffer in
            copy(parts, into: buffer)
            do throws(LatchkeyCrypto.CryptoError) {
                return .success(try body(UnsafeRawBufferPointer(buffer)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `AEAD.open` with the context assembled on the stack.
    private static func open(
        _ sealed: Data,
        key: SymmetricKey,
        context parts: ContextParts
    ) throws(LatchkeyCrypto.CryptoError) -> Data {
        try withContext(parts) { context throws(LatchkeyCrypto.CryptoError) in
            try AEAD.open(sealed, key: key, context: context)
        }
    }

    /// `AEAD.seal` with the context assembled on the stack.
    private static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        key: SymmetricKey,
        context parts: ContextParts
    ) throws(LatchkeyCrypto.CryptoError) -> Data {
        try withContext(parts) { context throws(LatchkeyCrypto.CryptoError) in
            try AEAD.seal(plaintext, key: key, context: context)
        }
    }

    /// The constant leading bytes of each context (`latchkey/v1/<purpose>/<table>`), built once per table
    /// rather than formatted on every seal and open.
    private struct ContextPrefixes: Sendable {
        let itemKey: Data
        let attributes: Data
        let secret: Data

        init(_ table: ItemTable) {
            itemKey = Data("latchkey/v1/itemkey/\(table.rawValue)".utf8)
            attributes = Data("latchkey/v1/attrs/\(table.rawValue)".utf8)
            secret = Data("latchkey/v1/secret/\(table.rawValue)".utf8)
        }

        private static let genp = ContextPrefixes(.genp)
        private static let inet = ContextPrefixes(.inet)
        private static let cert = ContextPrefixes(.cert)
        private static let keys = ContextPrefixes(.keys)

        static func of(_ table: ItemTable) -> ContextPrefixes {
            switch table {
            case .genp: genp
            case .inet: inet
            case .cert: cert
            case .keys: keys
            }
        }
    }

    /// Builds the encrypted row for a complete attribute set; `tags` (the item's search-tag tokens, and their
    /// text when known) are sealed into the attribute record, so that a tag index row added to the file
    /// cannot give the item a tag (`KeychainStore.openRows` checks them) and a backup or migration can read
    /// the tags back.
    static func seal(
        table: ItemTable,
        persistref: Data,
        attributes: [AttributeName: AttributeValue],
        secret: SecretData?,
        classKey: SymmetricKey,
        tokens: TokenCache,
        schema: ItemSchema,
        tags: SealedTags = SealedTags()
    ) throws(KeychainError) -> ItemRow {
        try mappingErrors {
            let itemKey = KeyWrap.randomKey()
            // The item key is wrapped as `KeyWrap.wrap` does (AES-GCM of its raw bytes), without the copy.
            let wrapped = try itemKey.withUnsafeBytes { raw in
                try seal(raw, key: classKey, context: itemKeyParts(table, persistref))
            }
            var row = ItemRow(
                persistref: persistref,
                primaryKey: tokens.primaryKey(table, schema, attributes),
                tokens: tokens.rowTokens(table, attributes),
                itemKey: wrapped,
                attributes: Data(),
                secret: nil
            )
            var record = RecordCodec.encode(attributes, tags: tags.tokens, tagText: tags.text)
            defer { record.resetBytes(in: 0..<record.count) }
            row.attributes = try record.withUnsafeBytes { plaintext in
                try seal(plaintext, key: itemKey, context: attributesParts(table, row))
            }
            if let secret {
                row.secret = try RecordCodec.withEncodedSecret(secret) { plaintext in
                    try seal(plaintext, key: itemKey, context: secretParts(table, persistref))
                }
                row.hasSecret = true
            }
            return row
        }
    }

    /// Decrypts a row's attributes (with its search-tag tokens) and, when asked, its secret and its tags' text.
    ///
    /// `tagText` is `nil` unless `withTagText` (see `RecordCodec.DecodedRecord.tagText`).
    ///
    /// - Throws: `decode` when any part fails authentication.
    static func open(
        table: ItemTable,
        row: ItemRow,
        classKey: SymmetricKey,
        withSecret: Bool,
        withTagText: Bool = false
    ) throws(KeychainError) -> (
        attributes: [AttributeName: AttributeValue], secret: SecretData?, tags: [Data], tagText: [String]?
    ) {
        let itemKey: SymmetricKey
        let record: Data
        do {
            itemKey = try unwrapItemKey(row.itemKey, classKey: classKey, context: itemKeyParts(table, row.persistref))
            record = try open(row.attributes, key: itemKey, context: attributesParts(table, row))
        } catch {
            throw KeychainError(
                .decode,
                "An item failed authentication (corrupt or tampered).",
                underlying: error.description
            )
        }
        let decoded = try RecordCodec.decodeRecord(record, withTagText: withTagText)
        let (attributes, tags, tagText) = (decoded.attributes, decoded.tags, decoded.tagText)
        guard withSecret, let sealedSecret = row.secret else { return (attributes, nil, tags, tagText) }
        var plaintext: Data
        do {
            plaintext = try open(sealedSecret, key: itemKey, context: secretParts(table, row.persistref))
        } catch {
            throw KeychainError(.decode, "An item's secret failed authentication (corrupt or tampered).")
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        return (attributes, try RecordCodec.decodeSecret(plaintext), tags, tagText)
    }

    /// `KeyWrap.unwrap` for the read path: the same checks, with concrete types (no generic dispatch).
    private static func unwrapItemKey(
        _ wrapped: Data,
        classKey: SymmetricKey,
        context: ContextParts
    ) throws(LatchkeyCrypto.CryptoError) -> SymmetricKey {
        guard wrapped.count == KeyWrap.wrappedLength else { throw .malformedCiphertext }
        var raw = try open(wrapped, key: classKey, context: context)
        defer { raw.resetBytes(in: 0..<raw.count) }
        return SymmetricKey(data: raw)
    }

    /// The item's `sha1` attribute: SHA-1 over its canonical attributes and secret (inside the encrypted
    /// record only, so it leaks nothing at rest).
    static func digest(_ attributes: [AttributeName: AttributeValue], secret: SecretData?) -> Data {
        var hasher = Insecure.SHA1()
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where name != .sha1 {
            var text = name.rawValue
            text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            value.withCanonicalBytes { prefix, bytes in
                hasher.update(bufferPointer: prefix)
                hasher.update(bufferPointer: bytes)
            }
        }
        if let secret { secret.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        return Data(hasher.finalize())
    }
}
