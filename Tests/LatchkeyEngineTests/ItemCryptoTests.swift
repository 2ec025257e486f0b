import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Item encryption: rows sealed by the write path open through the plain `KeyWrap`/`AEAD` calls of the
/// format (docs/storage-format.md), and the other way round, so the fast paths change no byte of it.
struct ItemCryptoTests {
    static let classKey = SymmetricKey(data: Data(repeating: 0x11, count: 32))
    static let tokens = TokenCache(tokenizer: IndexTokenizer(key: SymmetricKey(data: Data(repeating: 0x22, count: 32))))
    static let attributes: [AttributeName: AttributeValue] = [
        .account: .string("alice"), .service: .data(Data("svc".utf8)), .accessGroup: .string("group"),
        .accessible: .string(Accessibility.whenUnlocked.rawValue), .synchronizable: .number(0),
        .creationDate: .date(Date(timeIntervalSinceReferenceDate: 1000)), .label: .string("ünï"),
    ]

    static func sealed(secret: SecretData?) throws -> ItemRow {
        try ItemCrypto.seal(
            table: .genp,
            persistref: Data(repeating: 7, count: 16),
            attributes: attributes,
            secret: secret,
            classKey: classKey,
            tokens: tokens,
            schema: ItemSchema.of(.genericPassword)
        )
    }

    @Test(arguments: [
        nil, SecretData(string: ""), SecretData(string: "s3cret"), SecretData(Array(repeating: 9, count: 100)),
    ])
    func aSealedRowOpensByTheFormatsOwnSteps(secret: SecretData?) throws {
        let row = try Self.sealed(secret: secret)
        let itemKey = try KeyWrap.unwrap(
            row.itemKey,
            with: Self.classKey,
            context: ItemCrypto.itemKeyContext(.genp, row.persistref)
        )
        let record = try AEAD.open(row.attributes, key: itemKey, context: ItemCrypto.attributesContext(.genp, row))
        #expect(try RecordCodec.decode(record) == Self.attributes)
        #expect(record.count % RecordCodec.padding == 0)
        if let secret {
            let sealedSecret = try #require(row.secret)
            let plaintext = try AEAD.open(
                sealedSecret,
                key: itemKey,
                context: ItemCrypto.secretContext(.genp, row.persistref)
            )
            #expect(plaintext == RecordCodec.encodeSecret(secret))
            #expect(try RecordCodec.decodeSecret(plaintext) == secret)
        } else {
            #expect(row.secret == nil)
        }
        let opened = try ItemCrypto.open(table: .genp, row: row, classKey: Self.classKey, withSecret: true)
        #expect(opened.attributes == Self.attributes)
        #expect(opened.secret == secret)
    }

    /// A row built by the format's own steps (as older builds wrote it) opens through the read path.
    @Test func aRowBuiltByTheFormatsStepsOpens() throws {
        var row = try Self.sealed(secret: nil)
        let itemKey = KeyWrap.randomKey()
        row.itemKey = try KeyWrap.wrap(
            itemKey,
            with: Self.classKey,
            context: ItemCrypto.itemKeyContext(.genp, row.persistref)
        )
        row.attributes = try AEAD.seal(
            RecordCodec.encode(Self.attributes),
            key: itemKey,
            context: ItemCrypto.attributesContext(.genp, row)
        )
        row.secret = try AEAD.seal(
            RecordCodec.encodeSecret(SecretData(string: "old")),
            key: itemKey,
            context: ItemCrypto.secretContext(.genp, row.persistref)
        )
        let opened = try ItemCrypto.open(table: .genp, row: row, classKey: Self.classKey, withSecret: true)
        #expect(opened.attributes == Self.attributes)
        #expect(opened.secret == SecretData(string: "old"))
        var moved = row
        moved.persistref = Data(repeating: 8, count: 16)
        #expect(throws: KeychainError.self) {
            try ItemCrypto.open(table: .genp, row: moved, classKey: Self.classKey, withSecret: false)
        }
    }

    @Test func theDigestIsSHA1OverNamesAndCanonicalBytes() {
        var hasher = Insecure.SHA1()
        for (name, value) in Self.attributes.sorted(by: { $0.key < $1.key }) {
            hasher.update(data: Data(name.rawValue.utf8))
            hasher.update(data: value.canonicalBytes)
        }
        hasher.update(data: Data("pw".utf8))
        var withDigest = Self.attributes
        withDigest[.sha1] = .data(Data(repeating: 0, count: 20))
        #expect(ItemCrypto.digest(withDigest, secret: SecretData(string: "pw")) == Data(hasher.finalize()))
    }

    @Test(arguments: [
        AttributeValue.string("a"), .string(""), .data(Data([0, 0xFF])), .number(-3), .double(0.5),
        .date(Date(timeIntervalSinceReferenceDate: 7)),
    ])
    func canonicalBytesInTwoPiecesJoinToTheCanonicalBytes(value: AttributeValue) {
        let joined = value.withCanonicalBytes { Data($0) + Data($1) }
        #expect(joined == value.canonicalBytes)
    }
}
