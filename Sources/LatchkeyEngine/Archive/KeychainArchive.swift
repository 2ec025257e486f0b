import Crypto
import Foundation
import LatchkeyCrypto

/// A passphrase-encrypted backup of keychain items, as written by `latchkey export` and read by `latchkey import`.
///
/// The archive is one file: a clear header naming the format and the scrypt parameters, then one
/// AES-256-GCM box whose additional authenticated data is the whole header. The key is scrypt of the
/// archive's own passphrase (independent of any keychain passphrase). A wrong passphrase and any change
/// to the file both fail authentication.
///
/// ```
/// offset  size  field
/// 0       8     magic "LKARCHV1"
/// 8       1     format version (1)
/// 9       1     KDF identifier (1 = scrypt)
/// 10      2     length L of the KDF parameters, big-endian
/// 12      L     scrypt parameters: log2 N (1) ‖ r (4, BE) ‖ p (4, BE) ‖ salt (32)
/// 12+L    …     nonce (12) ‖ AES-256-GCM ciphertext ‖ tag (16); AAD = bytes 0 ..< 12+L
/// ```
///
/// The plaintext is a JSON document: `{"format": "latchkey-archive", "version": 2, "created": <unix
/// seconds>, "items": [{"class": "genp", "attributes": {"acct": {"s": "alice"}, …}, "data": "<base64>",
/// "tags": ["ss", …]}]}` with typed attribute values: `s` string, `b` base64 bytes, `n` integer, `f` double,
/// `t` date as seconds since 2001-01-01 UTC (Apple's reference date, so dates round-trip bit for bit).
/// `tags` (version 2) holds the item's search tags, only when it has some; a version 1 document (written
/// before search tags were carried) is still read, its items without tags.
///
/// ```swift
/// let archive = KeychainArchive(items: items)
/// let file = try archive.sealed(passphrase: SecretData(string: "backup passphrase"))
/// let restored = try KeychainArchive.open(file, passphrase: SecretData(string: "backup passphrase"))
/// ```
public struct KeychainArchive: Sendable, Hashable {
    /// One archived item.
    public struct Item: Sendable, Hashable {
        /// The item's class (never `.identity`).
        public var itemClass: ItemClass
        /// Every stored attribute, dates included.
        public var attributes: [AttributeName: AttributeValue]
        /// The secret, when the item has one.
        public var data: SecretData?
        /// The item's search tags (`NewItem.searchTags`), restored with it; empty when it has none (or when
        /// they could not be read back: an item whose tags were written before their text was kept).
        public var searchTags: [String]

        /// Makes an archived item.
        ///
        /// - Parameters:
        ///   - itemClass: The item's class (never `.identity`).
        ///   - attributes: Every stored attribute.
        ///   - data: The secret, when the item has one.
        ///   - searchTags: The item's search tags.
        public init(
            itemClass: ItemClass,
            attributes: [AttributeName: AttributeValue],
            data: SecretData?,
            searchTags: [String] = []
        ) {
            self.itemClass = itemClass
            self.attributes = attributes
            self.data = data
            self.searchTags = searchTags
        }

        /// An archived copy of a found item (its persistent reference is not kept); its search tags are kept
        /// when the search returned them (`FindRequest.withSearchTags`).
        public init(_ item: FoundItem) {
            self.init(
                itemClass: item.itemClass,
                attributes: item.attributes,
                data: item.data,
                searchTags: item.searchTags ?? []
            )
        }
    }

    /// The items, in archive order.
    public var items: [Item]
    /// When the archive was made.
    public var created: Date

    /// Makes an archive of `items`.
    public init(items: [Item], created: Date = Date()) {
        self.items = items
        self.created = created
    }

    static let magic = Data("LKARCHV1".utf8)
    static let formatVersion: UInt8 = 1
    /// The version of the JSON document inside: 2 carries search tags, 1 (still read) does not.
    static let payloadVersion = 2
    static let scryptIdentifier: UInt8 = 1

    /// Encrypts the archive under `passphrase`.
    ///
    /// - Parameters:
    ///   - passphrase: The archive's own passphrase; must not be empty.
    ///   - cost: The scrypt cost (`.standard` unless testing).
    /// - Returns: The archive file's bytes.
    /// - Throws: `KeychainError.Code.param` for an empty passphrase; `.internal` if the crypto backend fails.
    public func sealed(passphrase: SecretData, cost: KDFCost = .standard) throws(KeychainError) -> Data {
        var writer = KeychainArchiveWriter(created: created)
        for item in items { try writer.append(item) }
        return try writer.sealed(passphrase: passphrase, cost: cost)
    }

    /// Encrypts an encoded payload (the JSON document) into an archive file: `sealed(passphrase:cost:)`'s
    /// container, for any payload (tests write version 1 documents with it).
    static func sealed(
        payload plaintext: some DataProtocol,
        passphrase: SecretData,
        cost: KDFCost
    ) throws(KeychainError) -> Data {
        guard !passphrase.isEmpty else { throw KeychainError(.param, "The archive passphrase must not be empty.") }
        let parameters = cost.parameters()
        let encodedParameters = parameters.encoded
        var header = Self.magic
        header.append(Self.formatVersion)
        header.append(Self.scryptIdentifier)
        header.append(UInt8(encodedParameters.count >> 8))
        header.append(UInt8(encodedParameters.count & 0xFF))
        header.append(encodedParameters)
        let sealed = try mappingErrors {
            let key = try parameters.deriveKey(from: passphrase)
            return try AEAD.seal(plaintext, key: key, context: header)
        }
        var file = Data(capacity: header.count + sealed.count)
        file.append(header)
        file.append(sealed)
        return file
    }

    /// Decrypts an archive made by `sealed(passphrase:cost:)`.
    ///
    /// - Throws: `KeychainError.Code.decode` when the bytes are not a Latchkey archive (or a newer format);
    ///   `.authFailed` when the passphrase is wrong or the file was altered.
    public static func open(_ file: Data, passphrase: SecretData) throws(KeychainError) -> KeychainArchive {
        let bytes = [UInt8](file)
        guard bytes.count >= 12, Data(bytes[0..<8]) == magic else {
            throw KeychainError(.decode, "The file is not a Latchkey archive.")
        }
        guard bytes[8] == formatVersion, bytes[9] == scryptIdentifier else {
            throw KeychainError(.decode, "The archive uses a format version this build does not read.")
        }
        let parameterLength = Int(bytes[10]) << 8 | Int(bytes[11])
        let headerLength = 12 + parameterLength
        guard bytes.count >= headerLength + AEAD.overhead else {
            throw KeychainError(.decode, "The archive is truncated.")
        }
        let header = Data(bytes[0..<headerLength])
        let parameters: ScryptParameters
        do {
            parameters = try ScryptParameters(encoded: Data(bytes[12..<headerLength]))
        } catch {
            throw KeychainError(.decode, "The archive's key-derivation parameters are damaged.")
        }
        let key = try mappingErrors { try parameters.deriveKey(from: passphrase) }
        var plaintext: Data
        do {
            plaintext = try AEAD.open(Data(bytes[headerLength...]), key: key, context: header)
        } catch {
            throw KeychainError(.authFailed, "The archive passphrase is not correct, or the archive was altered.")
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        return try decodePayload(plaintext)
    }

    // MARK: Payload

    private struct Payload: Codable {
        var format: String
        var version: Int
        var created: Double
        var items: [PayloadItem]
    }

    private struct PayloadItem: Codable {
        var `class`: String
        var attributes: [String: PayloadValue]
        var data: String?
        /// The item's search tags (version 2; absent when it has none).
        var tags: [String]?
    }

    private struct PayloadValue: Codable {
        var s: String?
        var b: String?
        var n: Int64?
        var f: Double?
        var t: Double?

        var value: AttributeValue? {
            if let s { return .string(s) }
            if let b { return Data(base64Encoded: b).map { .data($0) } }
            if let n { return .number(n) }
            if let f { return .double(f) }
            if let t { return .date(Date(timeIntervalSinceReferenceDate: t)) }
            return nil
        }
    }

    private static func decodePayload(_ plaintext: Data) throws(KeychainError) -> KeychainArchive {
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: plaintext)
        } catch {
            throw KeychainError(.decode, "The archive's contents are malformed.")
        }
        guard payload.format == "latchkey-archive", (1...payloadVersion).contains(payload.version) else {
            throw KeychainError(.decode, "The archive's contents use a version this build does not read.")
        }
        var items: [Item] = []
        for entry in payload.items {
            guard let itemClass = ItemClass(rawValue: entry.class), itemClass != .identity else {
                throw KeychainError(.decode, "The archive holds an item of an unknown class.")
            }
            var attributes: [AttributeName: AttributeValue] = [:]
            for (name, encoded) in entry.attributes {
                guard let value = encoded.value else {
                    throw KeychainError(.decode, "The archive holds a malformed attribute value.")
                }
                attributes[AttributeName(rawValue: name)] = value
            }
            var data: SecretData?
            if let encoded = entry.data {
                guard var bytes = Data(base64Encoded: encoded) else {
                    throw KeychainError(.decode, "The archive holds a malformed secret.")
                }
                data = SecretData(bytes)
                bytes.resetBytes(in: 0..<bytes.count)
            }
            items.append(Item(itemClass: itemClass, attributes: attributes, data: data, searchTags: entry.tags ?? []))
        }
        return KeychainArchive(items: items, created: Date(timeIntervalSince1970: payload.created))
    }
}
