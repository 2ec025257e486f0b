import Foundation

/// One attribute of a class: its kind, whether it is part of the primary key, and its defaults.
public struct AttributeSpec: Sendable, Hashable {
    /// How values are coerced.
    public let kind: AttributeKind
    /// Whether the attribute is part of the class's primary key (uniqueness).
    public let isPrimaryKey: Bool
    /// The value stored on add when the caller gives none (it then appears in attribute dictionaries).
    public let defaultValue: AttributeValue?
    /// The value the primary key uses when the attribute is absent and has no stored default.
    public let primaryKeyFallback: AttributeValue?

    init(_ kind: AttributeKind, pk: Bool = false, default value: AttributeValue? = nil, fallback: AttributeValue? = nil)
    {
        self.kind = kind
        self.isPrimaryKey = pk
        self.defaultValue = value
        self.primaryKeyFallback = fallback ?? value
    }
}

/// The attributes, primary key and defaults of each item class, as Apple's data-protection keychain
/// defines them (docs/apple-semantics.md §1.4–§1.10). This is the one place where item semantics live.
public struct ItemSchema: Sendable {
    /// The class described.
    public let itemClass: ItemClass
    /// Every attribute the class accepts.
    public let attributes: [AttributeName: AttributeSpec]
    /// The primary-key attributes, in canonical order.
    public let primaryKey: [AttributeName]

    /// The schema of `itemClass` (identities use the key schema overlaid by the certificate's).
    public static func of(_ itemClass: ItemClass) -> ItemSchema {
        switch itemClass {
        case .genericPassword: genericPassword
        case .internetPassword: internetPassword
        case .certificate: certificate
        case .key: key
        case .identity: identity
        }
    }

    /// Apple's reference date (2001-01-01 00:00:00 UTC), the default start and end date of keys.
    static let referenceDate = AttributeValue.date(Date(timeIntervalSinceReferenceDate: 0))

    private static let common: [AttributeName: AttributeSpec] = [
        .creationDate: AttributeSpec(.date),
        .modificationDate: AttributeSpec(.date),
        .label: AttributeSpec(.blob),
        .accessGroup: AttributeSpec(.string, pk: true),
        .accessible: AttributeSpec(.access),
        .accessControl: AttributeSpec(.accessControl),
        .synchronizable: AttributeSpec(.number, pk: true, default: .number(0)),
        .tombstone: AttributeSpec(.number, default: .number(0)),
        .sha1: AttributeSpec(.sha1),
        .syncViewHint: AttributeSpec(.string, pk: true, fallback: .string("")),
        .tokenID: AttributeSpec(.string, pk: true, fallback: .string("")),
        .multiUser: AttributeSpec(.uuid, pk: true, default: .data(Data())),
        "UUID": AttributeSpec(.string),
        .sysBound: AttributeSpec(.number),
        .pcsPlaintext: AttributeSpec(.number),
        .pcsPublicKey: AttributeSpec(.blob),
        .pcsPublicIdentity: AttributeSpec(.blob),
        .appClip: AttributeSpec(.number),
        .sharingGroup: AttributeSpec(.string, pk: true, fallback: .string("")),
    ]

    private static let commonPrimaryKeyTail: [AttributeName] = [
        .accessGroup, .synchronizable, .syncViewHint, .tokenID, .multiUser, .sharingGroup,
    ]

    private static let passwordAttributes: [AttributeName: AttributeSpec] = [
        .account: AttributeSpec(.blob, pk: true, default: .string("")),
        .itemDescription: AttributeSpec(.blob),
        .comment: AttributeSpec(.blob),
        .creator: AttributeSpec(.number),
        .type: AttributeSpec(.number),
        .scriptCode: AttributeSpec(.number),
        .alias: AttributeSpec(.blob),
        .isInvisible: AttributeSpec(.number),
        .isNegative: AttributeSpec(.number),
        .hasCustomIcon: AttributeSpec(.number),
        .protected: AttributeSpec(.blob),
    ]

    private static func merged(_ parts: [AttributeName: AttributeSpec]...) -> [AttributeName: AttributeSpec] {
        parts.reduce(into: [:]) { result, part in result.merge(part) { _, new in new } }
    }

    /// `kSecClassGenericPassword`.
    package static let genericPassword = ItemSchema(
        itemClass: .genericPassword,
        attributes: merged(
            common,
            passwordAttributes,
            [
                .service: AttributeSpec(.blob, pk: true, default: .string("")),
                .generic: AttributeSpec(.blob),
            ]
        ),
        primaryKey: [.account, .service] + commonPrimaryKeyTail
    )

    /// `kSecClassInternetPassword`.
    static let internetPassword = ItemSchema(
        itemClass: .internetPassword,
        attributes: merged(
            common,
            passwordAttributes,
            [
                .securityDomain: AttributeSpec(.blob, pk: true, default: .string("")),
                .server: AttributeSpec(.blob, pk: true, default: .string("")),
                .protocol: AttributeSpec(.number, pk: true, default: .number(0)),
                .authenticationType: AttributeSpec(.blob, pk: true, default: .string("")),
                .port: AttributeSpec(.number, pk: true, default: .number(0)),
                .path: AttributeSpec(.blob, pk: true, default: .string("")),
            ]
        ),
        primaryKey: [.account, .securityDomain, .server, .protocol, .authenticationType, .port, .path]
            + commonPrimaryKeyTail
    )

    /// `kSecClassCertificate`.
    static let certificate = ItemSchema(
        itemClass: .certificate,
        attributes: merged(
            common,
            [
                .certificateType: AttributeSpec(.number, pk: true, default: .number(0)),
                .certificateEncoding: AttributeSpec(.number),
                .alias: AttributeSpec(.blob),
                .subject: AttributeSpec(.data),
                .issuer: AttributeSpec(.data, pk: true, default: .data(Data())),
                .serialNumber: AttributeSpec(.data, pk: true, default: .data(Data())),
                .subjectKeyID: AttributeSpec(.data),
                .publicKeyHash: AttributeSpec(.data),
            ]
        ),
        primaryKey: [.certificateType, .issuer, .serialNumber] + commonPrimaryKeyTail
    )

    /// `kSecClassKey`.
    static let key: ItemSchema = {
        var attributes = merged(
            common,
            [
                .keyClass: AttributeSpec(.number, pk: true, default: .number(0)),
                .applicationLabel: AttributeSpec(.data, pk: true, default: .data(Data())),
                .applicationTag: AttributeSpec(.blob, pk: true, default: .string("")),
                .keyCreator: AttributeSpec(.number, pk: true, default: .number(0)),
                .keyType: AttributeSpec(.number, pk: true, default: .number(0)),
                .keySizeInBits: AttributeSpec(.number, pk: true, default: .number(0)),
                .effectiveKeySize: AttributeSpec(.number, pk: true, default: .number(0)),
                .startDate: AttributeSpec(.date, pk: true, default: referenceDate),
                .endDate: AttributeSpec(.date, pk: true, default: referenceDate),
                .alias: AttributeSpec(.blob),
            ]
        )
        let flags: [AttributeName] = [
            .isPermanent, .isPrivate, .isModifiable, .isSensitive, .wasAlwaysSensitive, .isExtractable,
            .wasNeverExtractable, .canEncrypt, .canDecrypt, .canDerive, .canSign, .canVerify, .canSignRecover,
            .canVerifyRecover, .canWrap, .canUnwrap,
        ]
        for flag in flags { attributes[flag] = AttributeSpec(.number) }
        return ItemSchema(
            itemClass: .key,
            attributes: attributes,
            primaryKey: [
                .keyClass, .applicationLabel, .applicationTag, .keyCreator, .keyType, .keySizeInBits,
                .effectiveKeySize, .startDate, .endDate,
            ] + commonPrimaryKeyTail
        )
    }()

    /// `kSecClassIdentity`: key attributes overlaid by certificate attributes.
    static let identity = ItemSchema(
        itemClass: .identity,
        attributes: merged(key.attributes, certificate.attributes),
        primaryKey: key.primaryKey
    )

    /// Coerces `value` for attribute `name`.
    ///
    /// - Throws: `noSuchAttribute` (-25303) for an attribute the class does not have, `param` (-50)
    ///   for a value of the wrong kind.
    public func coerce(_ value: AttributeValue, for name: AttributeName) throws(KeychainError) -> AttributeValue {
        guard let spec = attributes[name] else {
            throw KeychainError(
                .noSuchAttribute,
                "Attribute '\(name.rawValue)' does not exist for class '\(itemClass.rawValue)'."
            )
        }
        guard let coerced = spec.kind.coerce(value) else {
            throw KeychainError(.param, "Attribute '\(name.rawValue)' has a value of the wrong type.")
        }
        return coerced
    }

    /// Coerces every attribute of a dictionary (see `coerce(_:for:)`).
    public func coerce(
        _ values: [AttributeName: AttributeValue]
    ) throws(KeychainError) -> [AttributeName: AttributeValue] {
        var result: [AttributeName: AttributeValue] = [:]
        result.reserveCapacity(values.count)
        for (name, value) in values {
            result[name] = try coerce(value, for: name)
        }
        return result
    }

    /// The canonical primary-key tuple of a full attribute set, as bytes.
    ///
    /// For each primary-key attribute in order: its short name's UTF-8, the length of its `canonicalBytes`
    /// (big-endian `UInt32`), then those bytes. Every add computes it: the value's bytes are appended in
    /// place (`withCanonicalBytes`), without a `Data` or an array per attribute.
    func primaryKeyBytes(of attributes: [AttributeName: AttributeValue]) -> Data {
        var out = Data()
        out.reserveCapacity(256)
        for name in primaryKey {
            let value = attributes[name] ?? self.attributes[name]?.primaryKeyFallback ?? .string("")
            value.withCanonicalBytes { prefix, bytes in
                out.append(contentsOf: name.rawValue.utf8)
                withUnsafeBytes(of: UInt32(prefix.count + bytes.count).bigEndian) { out.append(contentsOf: $0) }
                out.append(contentsOf: prefix)
                out.append(contentsOf: bytes)
            }
        }
        return out
    }

    /// Whether two complete attribute sets name the same item (Apple's uniqueness rule, docs/apple-semantics.md §1.3).
    package func samePrimaryKey(_ lhs: [AttributeName: AttributeValue], _ rhs: [AttributeName: AttributeValue]) -> Bool
    {
        primaryKeyBytes(of: lhs) == primaryKeyBytes(of: rhs)
    }

    /// Whether `attributes` fix every primary-key attribute that has no fallback.
    func coversPrimaryKey(_ attributes: [AttributeName: AttributeValue]) -> Bool {
        primaryKey.allSatisfy { attributes[$0] != nil || self.attributes[$0]?.primaryKeyFallback != nil }
    }
}
