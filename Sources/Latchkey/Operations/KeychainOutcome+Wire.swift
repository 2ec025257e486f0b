import Foundation

// The agent protocol's binary form (version 4) of an outcome: a tag byte, then the case's values.
//
//   1 items (count, found items)        5 accessGroups (count, strings)
//   2 count (zigzag varint)             6 changeCounter (zigzag varint)
//   3 exists (bool)                     7 restored (1 added | 2 replaced | 3 duplicate)
//   4 lockState (1 neverUnlocked |      8 batch (count, outcomes), at most 32 levels deep
//     2 unlocked | 3 locked)              9 damagedItems (count, (class, persistent reference))
//                                       10 integrity (the report's JSON as bytes: rare, not a hot path)
//
// A new case takes the next free tag; both switches below are exhaustive.

extension KeychainOutcome {
    private enum Tag: UInt8 {
        case items = 1
        case count = 2
        case exists = 3
        case lockState = 4
        case accessGroups = 5
        case changeCounter = 6
        case restored = 7
        case batch = 8
        case damagedItems = 9
        case integrity = 10
    }

    /// A first guess at an outcome's encoded size, so that a frame is rarely reallocated while written.
    var estimatedWireSize: Int {
        switch self {
        case .items(let items): 64 + items.count * 192 + items.reduce(0) { $0 + ($1.data?.count ?? 0) }
        case .accessGroups(let groups): 16 + groups.count * 32
        case .batch(let outcomes): 16 + outcomes.reduce(0) { $0 + $1.estimatedWireSize }
        case .damagedItems(let items): 16 + items.count * 24
        case .count, .exists, .lockState, .changeCounter, .restored, .integrity: 16
        }
    }

    func encodeWire(to writer: inout WireWriter, depth: Int) throws(KeychainError) {
        switch self {
        case .items(let items):
            writer.byte(Tag.items.rawValue)
            writer.varint(UInt64(items.count))
            for item in items { item.encodeWire(to: &writer) }
        case .count(let count):
            writer.byte(Tag.count.rawValue)
            writer.int(count)
        case .exists(let exists):
            writer.byte(Tag.exists.rawValue)
            writer.bool(exists)
        case .lockState(let state):
            writer.byte(Tag.lockState.rawValue)
            writer.byte(state.wireTag)
        case .accessGroups(let groups):
            writer.byte(Tag.accessGroups.rawValue)
            writer.varint(UInt64(groups.count))
            for group in groups { writer.string(group) }
        case .changeCounter(let counter):
            writer.byte(Tag.changeCounter.rawValue)
            writer.signed(counter)
        case .restored(let outcome):
            writer.byte(Tag.restored.rawValue)
            writer.byte(outcome.wireTag)
        case .batch(let outcomes):
            guard depth < WireReader.maximumDepth else {
                throw KeychainError(.param, "A batch answer nests deeper than \(WireReader.maximumDepth) levels.")
            }
            writer.byte(Tag.batch.rawValue)
            writer.varint(UInt64(outcomes.count))
            for outcome in outcomes { try outcome.encodeWire(to: &writer, depth: depth + 1) }
        case .damagedItems(let items):
            writer.byte(Tag.damagedItems.rawValue)
            writer.varint(UInt64(items.count))
            for item in items {
                writer.byte(item.itemClass.wireTag)
                writer.bytes(item.persistentReference)
            }
        case .integrity(let report):
            writer.byte(Tag.integrity.rawValue)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            do {
                writer.bytes(try encoder.encode(report))
            } catch {
                throw KeychainError(.internalComponent, "An integrity report could not be encoded.")
            }
        }
    }

    static func decodeWire(from reader: inout WireReader, depth: Int) throws(KeychainError) -> KeychainOutcome {
        let raw = try reader.byte("an outcome")
        guard let tag = Tag(rawValue: raw) else { throw WireReader.unknownTag(raw, of: "outcome") }
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
        case .restored: return .restored(try KeychainStore.RestoreOutcome.decodeWire(from: &reader))
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
        case .integrity:
            let json = try reader.bytes("an integrity report")
            do {
                return .integrity(try JSONDecoder().decode(IntegrityReport.self, from: json))
            } catch {
                throw WireReader.malformed("an integrity report that is not one")
            }
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

extension KeychainStore.RestoreOutcome {
    var wireTag: UInt8 {
        switch self {
        case .added: 1
        case .replaced: 2
        case .duplicate: 3
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> KeychainStore.RestoreOutcome {
        switch try reader.byte("a restore outcome") {
        case 1: .added
        case 2: .replaced
        case 3: .duplicate
        case let tag: throw WireReader.unknownTag(tag, of: "restore outcome")
        }
    }
}
