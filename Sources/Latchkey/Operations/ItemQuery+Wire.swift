import Foundation

// The wire form (docs/wire-protocol.md) of the item model: classes, queries, limits, changes and
// found items. An optional field is a presence byte (0 or 1) and, when 1, the value. Version 3 added the
// search tags (a count, then each tag as a string) to queries, changes and new items; version 4 to found
// items (read back when a find asks, for backups and migrations).
//
//   item class  = tag: 1 genp | 2 inet | 3 cert | 4 keys | 5 idnt
//   query       = optional class; attributes; synchronizable (1 no | 2 yes | 3 any);
//                 optional persistent reference (bytes); includeTombstones (bool);
//                 optional hostOrSubdomain (string); optional identity (certificate bytes, key label bytes);
//                 search tags
//   search tags = count (varint), then each tag (string)
//   match limit = tag: 1 one | 2 all | 3 count, then the count (zigzag varint)
//   changes     = attributes; optional secret (bytes); optional search tags
//   found item  = class; attributes; optional secret (bytes); persistent reference (bytes);
//                 optional search tags

extension ItemClass {
    var wireTag: UInt8 {
        switch self {
        case .genericPassword: 1
        case .internetPassword: 2
        case .certificate: 3
        case .key: 4
        case .identity: 5
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> ItemClass {
        switch try reader.byte("an item class") {
        case 1: .genericPassword
        case 2: .internetPassword
        case 3: .certificate
        case 4: .key
        case 5: .identity
        case let tag: throw WireReader.unknownTag(tag, of: "item class")
        }
    }
}

extension ItemQuery.Synchronizable {
    var wireTag: UInt8 {
        switch self {
        case .no: 1
        case .yes: 2
        case .any: 3
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> ItemQuery.Synchronizable {
        switch try reader.byte("a synchronizable filter") {
        case 1: .no
        case 2: .yes
        case 3: .any
        case let tag: throw WireReader.unknownTag(tag, of: "synchronizable filter")
        }
    }
}

extension ItemQuery {
    func encodeWire(to writer: inout WireWriter) {
        writer.bool(itemClass != nil)
        if let itemClass { writer.byte(itemClass.wireTag) }
        attributes.encodeWire(to: &writer)
        writer.byte(synchronizable.wireTag)
        writer.bool(persistentReference != nil)
        if let persistentReference { writer.bytes(persistentReference) }
        writer.bool(includeTombstones)
        writer.bool(hostOrSubdomain != nil)
        if let hostOrSubdomain { writer.string(hostOrSubdomain) }
        writer.bool(identity != nil)
        if let identity {
            writer.bytes(identity.certificate)
            writer.bytes(identity.keyLabel)
        }
        encodeSearchTags(searchTags, to: &writer)
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> ItemQuery {
        let itemClass = try reader.optional("a query's class") { (reader) throws(KeychainError) in
            try ItemClass.decodeWire(from: &reader)
        }
        let attributes = try [AttributeName: AttributeValue].decodeWire(from: &reader)
        let synchronizable = try Synchronizable.decodeWire(from: &reader)
        let persistentReference = try reader.optional("a persistent reference") { (reader) throws(KeychainError) in
            try reader.bytes("a persistent reference")
        }
        let includeTombstones = try reader.bool("includeTombstones")
        let host = try reader.optional("hostOrSubdomain") { (reader) throws(KeychainError) in
            try reader.string("hostOrSubdomain")
        }
        let identity = try reader.optional("an identity") { (reader) throws(KeychainError) in
            IdentityReference(
                certificate: try reader.bytes("an identity's certificate"),
                keyLabel: try reader.bytes("an identity's key label")
            )
        }
        return ItemQuery(
            itemClass,
            attributes: attributes,
            synchronizable: synchronizable,
            persistentReference: persistentReference,
            includeTombstones: includeTombstones,
            hostOrSubdomain: host,
            identity: identity,
            searchTags: try decodeSearchTags(from: &reader, "a query's search tags")
        )
    }
}

/// Writes search tags: their count, then each tag.
func encodeSearchTags(_ tags: [String], to writer: inout WireWriter) {
    writer.varint(UInt64(tags.count))
    for tag in tags { writer.string(tag) }
}

/// Reads search tags written by `encodeSearchTags`.
func decodeSearchTags(from reader: inout WireReader, _ what: String) throws(KeychainError) -> [String] {
    // A tag takes at least its length byte.
    let count = try reader.count(what, minimumSize: 1)
    var tags: [String] = []
    tags.reserveCapacity(count)
    for _ in 0..<count { tags.append(try reader.string("a search tag")) }
    return tags
}

extension MatchLimit {
    func encodeWire(to writer: inout WireWriter) {
        switch self {
        case .one: writer.byte(1)
        case .all: writer.byte(2)
        case .count(let count):
            writer.byte(3)
            writer.int(count)
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> MatchLimit {
        switch try reader.byte("a match limit") {
        case 1: return .one
        case 2: return .all
        case 3: return .count(try reader.int("a match limit's count"))
        case let tag: throw WireReader.unknownTag(tag, of: "match limit")
        }
    }
}

extension ItemChanges {
    func encodeWire(to writer: inout WireWriter) {
        attributes.encodeWire(to: &writer)
        writer.bool(data != nil)
        if let data { writer.secret(data) }
        writer.bool(searchTags != nil)
        if let searchTags { encodeSearchTags(searchTags, to: &writer) }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> ItemChanges {
        let attributes = try [AttributeName: AttributeValue].decodeWire(from: &reader)
        let data = try reader.optional("a change's secret") { (reader) throws(KeychainError) in
            try reader.secret("a change's secret")
        }
        let tags = try reader.optional("a change's search tags") { (reader) throws(KeychainError) in
            try decodeSearchTags(from: &reader, "a change's search tags")
        }
        return ItemChanges(attributes: attributes, data: data, searchTags: tags)
    }
}

extension FoundItem {
    /// The fewest bytes a found item takes: class, attribute count, secret presence, reference length,
    /// search-tag presence.
    static let minimumWireSize = 5

    func encodeWire(to writer: inout WireWriter) {
        writer.byte(itemClass.wireTag)
        attributes.encodeWire(to: &writer)
        writer.bool(data != nil)
        if let data { writer.secret(data) }
        writer.bytes(persistentReference)
        writer.bool(searchTags != nil)
        if let searchTags { encodeSearchTags(searchTags, to: &writer) }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> FoundItem {
        let itemClass = try ItemClass.decodeWire(from: &reader)
        let attributes = try [AttributeName: AttributeValue].decodeWire(from: &reader)
        let data = try reader.optional("a found item's secret") { (reader) throws(KeychainError) in
            try reader.secret("a found item's secret")
        }
        let persistentReference = try reader.bytes("a persistent reference")
        let tags = try reader.optional("a found item's search tags") { (reader) throws(KeychainError) in
            try decodeSearchTags(from: &reader, "a found item's search tags")
        }
        return FoundItem(
            itemClass: itemClass,
            attributes: attributes,
            data: data,
            persistentReference: persistentReference,
            searchTags: tags
        )
    }
}
