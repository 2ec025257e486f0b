import Foundation
import Latchkey

/// The binary form of an entry inside the log's encrypted records, with the agent protocol's vocabulary
/// (`WireWriter`, `WireReader`): a version byte (1), the time (seconds since 1970, a double), the event,
/// decision and channel bytes, the optional group, the application (path, optional SHA-256, process id,
/// ancestry), then the items (class, fields).
extension AccessLogEntry {
    /// The entry format this build writes and reads.
    static let wireVersion: UInt8 = 1

    /// The entry's bytes (the plaintext of one log record).
    func encoded() -> Data {
        var writer = WireWriter(capacity: 256)
        writer.byte(Self.wireVersion)
        writer.double(time.timeIntervalSince1970)
        writer.byte(event.rawValue)
        writer.byte(decision.rawValue)
        writer.byte(channel.rawValue)
        writer.bool(group != nil)
        if let group { writer.string(group) }
        writer.string(application.path)
        writer.bool(application.sha256 != nil)
        if let digest = application.sha256 { writer.string(digest) }
        writer.int(Int(application.process))
        writer.varint(UInt64(application.ancestry.count))
        for name in application.ancestry { writer.string(name) }
        writer.varint(UInt64(items.count))
        for item in items {
            writer.string(item.itemClass)
            writer.varint(UInt64(item.fields.count))
            for field in item.fields {
                writer.string(field.name)
                writer.string(field.value)
            }
        }
        return writer.finish()
    }

    /// Decodes an entry's bytes.
    ///
    /// - Throws: `KeychainError.Code.decode` for bytes that are not an entry of this version.
    static func decode(_ bytes: Data) throws(KeychainError) -> AccessLogEntry {
        try WireReader.read(bytes) { (reader: inout WireReader) throws(KeychainError) -> AccessLogEntry in
            let version = try reader.byte("the entry version")
            guard version == wireVersion else { throw WireReader.malformed("entry version \(version)") }
            let seconds = try reader.number("the entry time")
            let eventTag = try reader.byte("the event")
            guard let event = Event(rawValue: eventTag) else { throw WireReader.unknownTag(eventTag, of: "event") }
            let decisionTag = try reader.byte("the decision")
            guard let decision = Decision(rawValue: decisionTag) else {
                throw WireReader.unknownTag(decisionTag, of: "decision")
            }
            let channelTag = try reader.byte("the channel")
            guard let channel = Channel(rawValue: channelTag) else {
                throw WireReader.unknownTag(channelTag, of: "channel")
            }
            let group = try reader.optional("the group") { (reader: inout WireReader) throws(KeychainError) in
                try reader.string("the group")
            }
            let path = try reader.string("the application path")
            let digest = try reader.optional("the digest") { (reader: inout WireReader) throws(KeychainError) in
                try reader.string("the digest")
            }
            let process = try reader.int("the process id")
            guard let processID = Int32(exactly: process) else { throw WireReader.malformed("a process id") }
            var ancestry: [String] = []
            for _ in 0..<(try reader.count("the ancestry")) { ancestry.append(try reader.string("an ancestor")) }
            var items: [Item] = []
            for _ in 0..<(try reader.count("the items")) {
                let itemClass = try reader.string("an item class")
                var fields: [Field] = []
                for _ in 0..<(try reader.count("the fields", minimumSize: 2)) {
                    let name = try reader.string("a field name")
                    fields.append(Field(name: name, value: try reader.string("a field value")))
                }
                items.append(Item(itemClass: itemClass, fields: fields))
            }
            return AccessLogEntry(
                time: Date(timeIntervalSince1970: seconds),
                event: event,
                items: items,
                group: group,
                application: Application(path: path, sha256: digest, process: processID, ancestry: ancestry),
                decision: decision,
                channel: channel
            )
        }
    }
}
