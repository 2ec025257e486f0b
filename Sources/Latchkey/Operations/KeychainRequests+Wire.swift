import Foundation

// The wire form (docs/wire-protocol.md) of what operations carry besides queries: new items,
// find, update and delete requests, and the authentication and corrupt-row policies.
//
//   new item       = class; attributes; optional secret (bytes); search tags (ItemQuery+Wire.swift)
//   find           = query; match limit; withData (bool); authentication; corrupt rows;
//                    optional authenticationReuse (double, seconds; NaN refused); withSearchTags (bool,
//                    version 4); referencesOnly (bool, version 5)
//   update         = query; changes; authentication; optional authenticationReuse
//   delete         = query; match limit
//   authentication = tag: 1 ask | 2 skip | 3 fail | 4 confirmed
//   corrupt rows   = tag: 1 skip | 2 report

extension NewItem {
    /// The fewest bytes a new item takes: class, attribute count, secret presence, tag count.
    static let minimumWireSize = 4

    func encodeWire(to writer: inout WireWriter) {
        writer.byte(itemClass.wireTag)
        attributes.encodeWire(to: &writer)
        writer.bool(data != nil)
        if let data { writer.secret(data) }
        encodeSearchTags(searchTags, to: &writer)
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> NewItem {
        let itemClass = try ItemClass.decodeWire(from: &reader)
        let attributes = try [AttributeName: AttributeValue].decodeWire(from: &reader)
        let data = try reader.optional("a new item's secret") { (reader) throws(KeychainError) in
            try reader.secret("a new item's secret")
        }
        let tags = try decodeSearchTags(from: &reader, "a new item's search tags")
        return NewItem(itemClass, attributes: attributes, data: data, searchTags: tags)
    }
}

extension AuthenticationPolicy {
    var wireTag: UInt8 {
        switch self {
        case .ask: 1
        case .skip: 2
        case .fail: 3
        case .confirmed: 4
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> AuthenticationPolicy {
        switch try reader.byte("an authentication policy") {
        case 1: .ask
        case 2: .skip
        case 3: .fail
        case 4: .confirmed
        case let tag: throw WireReader.unknownTag(tag, of: "authentication policy")
        }
    }
}

extension CorruptRowPolicy {
    var wireTag: UInt8 {
        switch self {
        case .skip: 1
        case .report: 2
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> CorruptRowPolicy {
        switch try reader.byte("a corrupt-row policy") {
        case 1: .skip
        case 2: .report
        case let tag: throw WireReader.unknownTag(tag, of: "corrupt-row policy")
        }
    }
}

extension FindRequest {
    func encodeWire(to writer: inout WireWriter) {
        query.encodeWire(to: &writer)
        limit.encodeWire(to: &writer)
        writer.bool(withData)
        writer.byte(authentication.wireTag)
        writer.byte(corruptRows.wireTag)
        writeReuse(authenticationReuse, to: &writer)
        writer.bool(withSearchTags)
        writer.bool(referencesOnly)
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> FindRequest {
        FindRequest(
            try ItemQuery.decodeWire(from: &reader),
            limit: try MatchLimit.decodeWire(from: &reader),
            withData: try reader.bool("withData"),
            authentication: try AuthenticationPolicy.decodeWire(from: &reader),
            corruptRows: try CorruptRowPolicy.decodeWire(from: &reader),
            authenticationReuse: try readReuse(from: &reader),
            withSearchTags: try reader.bool("withSearchTags"),
            referencesOnly: try reader.bool("referencesOnly")
        )
    }
}

extension UpdateRequest {
    func encodeWire(to writer: inout WireWriter) {
        query.encodeWire(to: &writer)
        changes.encodeWire(to: &writer)
        writer.byte(authentication.wireTag)
        writeReuse(authenticationReuse, to: &writer)
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> UpdateRequest {
        UpdateRequest(
            try ItemQuery.decodeWire(from: &reader),
            changes: try ItemChanges.decodeWire(from: &reader),
            authentication: try AuthenticationPolicy.decodeWire(from: &reader),
            authenticationReuse: try readReuse(from: &reader)
        )
    }
}

extension DeleteRequest {
    func encodeWire(to writer: inout WireWriter) {
        query.encodeWire(to: &writer)
        limit.encodeWire(to: &writer)
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> DeleteRequest {
        DeleteRequest(try ItemQuery.decodeWire(from: &reader), limit: try MatchLimit.decodeWire(from: &reader))
    }
}

/// Writes a request's `authenticationReuse`: a presence byte and the seconds.
private func writeReuse(_ reuse: TimeInterval?, to writer: inout WireWriter) {
    writer.bool(reuse != nil)
    if let reuse { writer.double(reuse) }
}

/// Reads a request's `authenticationReuse`.
private func readReuse(from reader: inout WireReader) throws(KeychainError) -> TimeInterval? {
    try reader.optional("authenticationReuse") { (reader) throws(KeychainError) in
        try reader.number("authenticationReuse")
    }
}
