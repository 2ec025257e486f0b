import Foundation

// The wire form (docs/wire-protocol.md, "Outcomes") of an outcome: its tag (`KeychainOutcome.Kind`'s raw value),
// then the case's values. Every value is encoded field by field (an integrity report too). A new outcome takes
// the next free tag without changing the protocol version; both switches below are exhaustive.

extension KeychainOutcome {
    /// A first guess at an outcome's encoded size, so that a frame is rarely reallocated while written.
    var estimatedWireSize: Int {
        switch storage {
        case .items(let items): 64 + items.count * 192 + items.reduce(0) { $0 + ($1.data?.count ?? 0) }
        case .accessGroups(let groups): 16 + groups.count * 32
        case .batch(let outcomes): 16 + outcomes.reduce(0) { $0 + $1.estimatedWireSize }
        case .damagedItems(let items): 16 + items.count * 24
        case .integrity(let report): report.estimatedWireSize
        case .count, .exists, .lockState, .changeCounter, .restored: 16
        }
    }

    func encodeWire(to writer: inout WireWriter, depth: Int) throws(KeychainError) {
        switch storage {
        case .items(let items):
            writer.byte(Kind.items.rawValue)
            writer.varint(UInt64(items.count))
            for item in items { item.encodeWire(to: &writer) }
        case .count(let count):
            writer.byte(Kind.count.rawValue)
            writer.int(count)
        case .exists(let exists):
            writer.byte(Kind.exists.rawValue)
            writer.bool(exists)
        case .lockState(let state):
            writer.byte(Kind.lockState.rawValue)
            writer.byte(state.wireTag)
        case .accessGroups(let groups):
            writer.byte(Kind.accessGroups.rawValue)
            writer.varint(UInt64(groups.count))
            for group in groups { writer.string(group) }
        case .changeCounter(let counter):
            writer.byte(Kind.changeCounter.rawValue)
            writer.signed(counter)
        case .restored(let outcome):
            writer.byte(Kind.restored.rawValue)
            writer.byte(outcome.wireTag)
        case .batch(let outcomes):
            guard depth < WireReader.maximumDepth else {
                throw KeychainError(.param, "A batch answer nests deeper than \(WireReader.maximumDepth) levels.")
            }
            writer.byte(Kind.batch.rawValue)
            writer.varint(UInt64(outcomes.count))
            for outcome in outcomes { try outcome.encodeWire(to: &writer, depth: depth + 1) }
        case .damagedItems(let items):
            writer.byte(Kind.damagedItems.rawValue)
            writer.varint(UInt64(items.count))
            for item in items {
                writer.byte(item.itemClass.wireTag)
                writer.bytes(item.persistentReference)
            }
        case .integrity(let report):
            writer.byte(Kind.integrity.rawValue)
            report.encodeWire(to: &writer)
        }
    }

    static func decodeWire(from reader: inout WireReader, depth: Int) throws(KeychainError) -> KeychainOutcome {
        let tag = Kind(rawValue: try reader.byte("an outcome"))
        switch tag {
        case .items:
            let count = try reader.count("the found items", minimumSize: FoundItem.minimumWireSize)
            var items: [FoundItem] = []
            items.reserveCapacity(Swift.min(count, 64))
            for _ in 0..<count { items.append(try FoundItem.decodeWire(from: &reader)) }
            return .items(items)
        case .count: return .count(try reader.int("a count"))
        case .exists: return .exists(try reader.bool("exists"))
        case .lockState: return .lockState(try LockState.decodeWire(from: &reader))
        case .accessGroups:
            let count = try reader.count("the access groups")
            var groups: [String] = []
            groups.reserveCapacity(Swift.min(count, 64))
            for _ in 0..<count { groups.append(try reader.string("an access group")) }
            return .accessGroups(groups)
        case .changeCounter: return .changeCounter(try reader.signed("a change counter"))
        case .restored: return .restored(try RestoreOutcome.decodeWire(from: &reader))
        case .batch:
            guard depth < WireReader.maximumDepth else {
                throw WireReader.malformed("batch answers nest deeper than \(WireReader.maximumDepth) levels")
            }
            let count = try reader.count("a batch's outcomes")
            var outcomes: [KeychainOutcome] = []
            outcomes.reserveCapacity(Swift.min(count, 16))
            for _ in 0..<count { outcomes.append(try decodeWire(from: &reader, depth: depth + 1)) }
            return .batch(outcomes)
        case .damagedItems:
            let count = try reader.count("the damaged items", minimumSize: 2)
            var items: [DamagedItem] = []
            items.reserveCapacity(Swift.min(count, 64))
            for _ in 0..<count {
                items.append(
                    DamagedItem(
                        itemClass: try ItemClass.decodeWire(from: &reader),
                        persistentReference: try reader.bytes("a damaged item's persistent reference")
                    )
                )
            }
            return .damagedItems(items)
        case .integrity: return .integrity(try IntegrityReport.decodeWire(from: &reader))
        default: throw WireReader.unknownTag(tag.rawValue, of: "outcome", highest: Kind.highest.rawValue)
        }
    }
}

extension LockState {
    var wireTag: UInt8 {
        switch self {
        case .neverUnlocked: 1
        case .unlocked: 2
        case .locked: 3
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> LockState {
        switch try reader.byte("a lock state") {
        case 1: .neverUnlocked
        case 2: .unlocked
        case 3: .locked
        case let tag: throw WireReader.unknownTag(tag, of: "lock state")
        }
    }
}

extension RestoreOutcome {
    var wireTag: UInt8 {
        switch self {
        case .added: 1
        case .replaced: 2
        case .duplicate: 3
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> RestoreOutcome {
        switch try reader.byte("a restore outcome") {
        case 1: .added
        case 2: .replaced
        case 3: .duplicate
        case let tag: throw WireReader.unknownTag(tag, of: "restore outcome")
        }
    }
}
