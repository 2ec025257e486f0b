import Foundation

extension DamagedItem: Codable {
    private enum CodingKeys: String, CodingKey { case itemClass, persistentReference }

    /// Decodes a damaged-item value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            itemClass: try container.decode(ItemClass.self, forKey: .itemClass),
            persistentReference: try container.decode(Data.self, forKey: .persistentReference)
        )
    }

    /// Encodes a damaged-item value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(itemClass, forKey: .itemClass)
        try container.encode(persistentReference, forKey: .persistentReference)
    }
}
