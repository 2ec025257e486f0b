import Foundation
import LatchkeyCrypto

// Codable conformances of the operation model written out where a field is a `SecretData`, whose bytes travel as plain `Data` inside the (private) envelope.

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
    private enum CodingKeys: String, CodingKey { case itemClass, attributes, data, persistentReference }

    /// Decodes a found item.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            itemClass: try container.decode(ItemClass.self, forKey: .itemClass),
            attributes: try container.decode([AttributeName: AttributeValue].self, forKey: .attributes),
            data: try container.decodeIfPresent(Data.self, forKey: .data).map { SecretData($0) },
            persistentReference: try container.decode(Data.self, forKey: .persistentReference)
        )
    }

    /// Encodes a found item.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemClass, forKey: .itemClass)
        try container.encode(attributes, forKey: .attributes)
        try container.encodeIfPresent(data?.data, forKey: .data)
        try container.encode(persistentReference, forKey: .persistentReference)
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
