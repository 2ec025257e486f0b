import Foundation
import LatchkeyCrypto

// Codable conformances of the engine's request and result values written out where a field is a `SecretData`, whose bytes travel as plain `Data` inside the (private) envelope.

extension NewItem: Codable {
    private enum CodingKeys: String, CodingKey { case itemClass, attributes, data, searchTags }

    /// Decodes an item to add (`searchTags` may be absent: none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(ItemClass.self, forKey: .itemClass),
            attributes: try container.decode([AttributeName: AttributeValue].self, forKey: .attributes),
            data: try container.decodeIfPresent(Data.self, forKey: .data).map { SecretData($0) },
            searchTags: try container.decodeIfPresent([String].self, forKey: .searchTags) ?? []
        )
    }

    /// Encodes an item to add (`searchTags` only when there are some).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemClass, forKey: .itemClass)
        try container.encode(attributes, forKey: .attributes)
        try container.encodeIfPresent(data?.data, forKey: .data)
        if !searchTags.isEmpty { try container.encode(searchTags, forKey: .searchTags) }
    }
}

extension ItemChanges: Codable {
    private enum CodingKeys: String, CodingKey { case attributes, data, searchTags }

    /// Decodes a change set (`searchTags` absent: keep the items' tags).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            attributes: try container.decode([AttributeName: AttributeValue].self, forKey: .attributes),
            data: try container.decodeIfPresent(Data.self, forKey: .data).map { SecretData($0) },
            searchTags: try container.decodeIfPresent([String].self, forKey: .searchTags)
        )
    }

    /// Encodes a change set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(attributes, forKey: .attributes)
        try container.encodeIfPresent(data?.data, forKey: .data)
        try container.encodeIfPresent(searchTags, forKey: .searchTags)
    }
}

extension FoundItem: Codable {
    private enum CodingKeys: String, CodingKey { case itemClass, attributes, data, persistentReference, searchTags }

    /// Decodes a found item (`searchTags` may be absent: not asked for).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            itemClass: try container.decode(ItemClass.self, forKey: .itemClass),
            attributes: try container.decode([AttributeName: AttributeValue].self, forKey: .attributes),
            data: try container.decodeIfPresent(Data.self, forKey: .data).map { SecretData($0) },
            persistentReference: try container.decode(Data.self, forKey: .persistentReference),
            searchTags: try container.decodeIfPresent([String].self, forKey: .searchTags)
        )
    }

    /// Encodes a found item (`searchTags` only when present).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemClass, forKey: .itemClass)
        try container.encode(attributes, forKey: .attributes)
        try container.encodeIfPresent(data?.data, forKey: .data)
        try container.encode(persistentReference, forKey: .persistentReference)
        try container.encodeIfPresent(searchTags, forKey: .searchTags)
    }
}

extension FindRequest {
    private enum CodingKeys: String, CodingKey {
        case query, limit, withData, authentication, corruptRows, authenticationReuse, withSearchTags, referencesOnly
    }

    /// Decodes a search (`withSearchTags` may be absent: off, as in searches encoded before it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(ItemQuery.self, forKey: .query),
            limit: try container.decode(MatchLimit.self, forKey: .limit),
            withData: try container.decode(Bool.self, forKey: .withData),
            authentication: try container.decode(AuthenticationPolicy.self, forKey: .authentication),
            corruptRows: try container.decode(CorruptRowPolicy.self, forKey: .corruptRows),
            authenticationReuse: try container.decodeIfPresent(TimeInterval.self, forKey: .authenticationReuse),
            withSearchTags: try container.decodeIfPresent(Bool.self, forKey: .withSearchTags) ?? false,
            referencesOnly: try container.decodeIfPresent(Bool.self, forKey: .referencesOnly) ?? false
        )
    }

    /// Encodes a search (`withSearchTags` only when on).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(limit, forKey: .limit)
        try container.encode(withData, forKey: .withData)
        try container.encode(authentication, forKey: .authentication)
        try container.encode(corruptRows, forKey: .corruptRows)
        try container.encodeIfPresent(authenticationReuse, forKey: .authenticationReuse)
        if withSearchTags { try container.encode(withSearchTags, forKey: .withSearchTags) }
        if referencesOnly { try container.encode(referencesOnly, forKey: .referencesOnly) }
    }
}

extension UnlockCredential: Codable {
    private enum CodingKeys: String, CodingKey { case passphrase, keyFile }

    /// Decodes a credential.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let passphrase = try container.decodeIfPresent(Data.self, forKey: .passphrase) {
            self = .passphrase(SecretData(passphrase))
        } else {
            self = .keyFile(SecretData(try container.decode(Data.self, forKey: .keyFile)))
        }
    }

    /// Encodes a credential.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .passphrase(let secret): try container.encode(secret.data, forKey: .passphrase)
        case .keyFile(let secret): try container.encode(secret.data, forKey: .keyFile)
        }
    }
}
