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
    static func itemKeyContext(_ table: ItemTable, _ persistref: Data) -> Data {
        ContextPrefixes.of(table).itemKey + persistref
    }

    static func attributesContext(_ table: ItemTable, _ row: ItemRow) -> Data {
        let classToken = row.tokens["kc"] ?? Data()
        var context = ContextPrefixes.of(table).attributes
        context.reserveCapacity(context.count + row.persistref.count + row.primaryKey.count + classToken.count)
        context.append(row.persistref)
        context.append(row.primaryKey)
        context.append(classToken)
        return context
    }

    static func secretContext(_ table: ItemTable, _ persistref: Data) -> Data {
        ContextPrefixes.of(table).secret + persistref
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

    /// Builds the encrypted row for a complete attribute set.
    static func seal(
        table: ItemTable,
        persistref: Data,
        attributes: [AttributeName: AttributeValue],
        secret: SecretData?,
        classKey: SymmetricKey,
        tokens: TokenCache,
        schema: ItemSchema
    ) throws(KeychainError) -> ItemRow {
        try mappingErrors {
            let itemKey = KeyWrap.randomKey()
            var row = ItemRow(
                persistref: persistref,
                primaryKey: tokens.primaryKey(table, schema, attributes),
                tokens: tokens.rowTokens(table, attributes),
                itemKey: try KeyWrap.wrap(itemKey, with: classKey, context: itemKeyContext(table, persistref)),
                attributes: Data(),
                secret: nil
            )
            row.attributes = try AEAD.seal(
                RecordCodec.encode(attributes),
                key: itemKey,
                context: attributesContext(table, row)
            )
            if let secret {
                row.secret = try AEAD.seal(
                    RecordCodec.encodeSecret(secret),
                    key: itemKey,
                    context: secretContext(table, persistref)
                )
            }
            return row
        }
    }

    /// Decrypts a row's attributes and, when asked, its secret.
    ///
    /// - Throws: `decode` when any part fails authentication.
    static func open(
        table: ItemTable,
        row: ItemRow,
        classKey: SymmetricKey,
        withSecret: Bool
    ) throws(KeychainError) -> (
        attributes: [AttributeName: AttributeValue], secret: SecretData?
    ) {
        let itemKey: SymmetricKey
        let record: Data
        do {
            itemKey = try KeyWrap.unwrap(row.itemKey, with: classKey, context: itemKeyContext(table, row.persistref))
            record = try AEAD.open(row.attributes, key: itemKey, context: attributesContext(table, row))
        } catch {
            throw KeychainError(
                .decode,
                "An item failed authentication (corrupt or tampered).",
                underlying: error.description
            )
        }
        let attributes = try RecordCodec.decode(record)
        guard withSecret, let sealedSecret = row.secret else { return (attributes, nil) }
        do {
            let plaintext = try AEAD.open(sealedSecret, key: itemKey, context: secretContext(table, row.persistref))
            return (attributes, try RecordCodec.decodeSecret(plaintext))
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.decode, "An item's secret failed authentication (corrupt or tampered).")
        }
    }

    /// The item's `sha1` attribute: SHA-1 over its canonical attributes and secret (inside the encrypted
    /// record only, so it leaks nothing at rest).
    static func digest(_ attributes: [AttributeName: AttributeValue], secret: SecretData?) -> Data {
        var hasher = Insecure.SHA1()
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where name != .sha1 {
            hasher.update(data: Data(name.rawValue.utf8))
            hasher.update(data: value.canonicalBytes)
        }
        if let secret { secret.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        return Data(hasher.finalize())
    }
}
