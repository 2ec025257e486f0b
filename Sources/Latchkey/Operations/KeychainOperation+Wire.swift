import Foundation

// The agent protocol's binary form (version 4) of an operation: a tag byte, then the case's values in
// declaration order.
//
//   1 add (new item)                          9 delete (delete request)
//   2 addAll (count, new items; tolerate)     10 batch (count, operations), at most 32 levels deep
//   3 upsert (new item)                       11 lockState
//   4 updateFirstOrAdd (query; changes;       12 unlock (credential)
//     new item)                               13 lock
//   5 restore (new item; replacing: bool)     14 accessGroups
//   6 find (find request)                     15 changeCounter
//   7 exists (query)
//   8 update (update request)                 16 damagedItems (class; includingSecrets: bool)
//                                             17 verifyIntegrity (acceptingCurrentState: bool)
//                                             18 changeCredential (current credential; new credential)
//
// A new case takes the next free tag; both switches below are exhaustive, so the compiler points at a
// case without an encoding.

extension KeychainOperation {
    private enum Tag: UInt8 {
        case add = 1
        case addAll = 2
        case upsert = 3
        case updateFirstOrAdd = 4
        case restore = 5
        case find = 6
        case exists = 7
        case update = 8
        case delete = 9
        case batch = 10
        case lockState = 11
        case unlock = 12
        case lock = 13
        case accessGroups = 14
        case changeCounter = 15
        case damagedItems = 16
        case verifyIntegrity = 17
        case changeCredential = 18
    }

    func encodeWire(to writer: inout WireWriter, depth: Int) throws(KeychainError) {
        switch self {
        case .add(let item):
            writer.byte(Tag.add.rawValue)
            item.encodeWire(to: &writer)
        case .addAll(let items, let tolerateExisting):
            writer.byte(Tag.addAll.rawValue)
            writer.varint(UInt64(items.count))
            for item in items { item.encodeWire(to: &writer) }
            writer.bool(tolerateExisting)
        case .upsert(let item):
            writer.byte(Tag.upsert.rawValue)
            item.encodeWire(to: &writer)
        case .updateFirstOrAdd(let match, let changes, let otherwise):
            writer.byte(Tag.updateFirstOrAdd.rawValue)
            match.encodeWire(to: &writer)
            changes.encodeWire(to: &writer)
            otherwise.encodeWire(to: &writer)
        case .restore(let item, let replacingExisting):
            writer.byte(Tag.restore.rawValue)
            item.encodeWire(to: &writer)
            writer.bool(replacingExisting)
        case .find(let request):
            writer.byte(Tag.find.rawValue)
            request.encodeWire(to: &writer)
        case .exists(let query):
            writer.byte(Tag.exists.rawValue)
            query.encodeWire(to: &writer)
        case .update(let request):
            writer.byte(Tag.update.rawValue)
            request.encodeWire(to: &writer)
        case .delete(let request):
            writer.byte(Tag.delete.rawValue)
            request.encodeWire(to: &writer)
        case .batch(let operations):
            guard depth < WireReader.maximumDepth else {
                throw KeychainError(.param, "A batch nests deeper than \(WireReader.maximumDepth) levels.")
            }
            writer.byte(Tag.batch.rawValue)
            writer.varint(UInt64(operations.count))
            for operation in operations { try operation.encodeWire(to: &writer, depth: depth + 1) }
        case .lockState: writer.byte(Tag.lockState.rawValue)
        case .unlock(let credential):
            writer.byte(Tag.unlock.rawValue)
            credential.encodeWire(to: &writer)
        case .lock: writer.byte(Tag.lock.rawValue)
        case .accessGroups: writer.byte(Tag.accessGroups.rawValue)
        case .changeCounter: writer.byte(Tag.changeCounter.rawValue)
        case .damagedItems(let itemClass, let includingSecrets):
            writer.byte(Tag.damagedItems.rawValue)
            writer.byte(itemClass.wireTag)
            writer.bool(includingSecrets)
        case .verifyIntegrity(let acceptingCurrentState):
            writer.byte(Tag.verifyIntegrity.rawValue)
            writer.bool(acceptingCurrentState)
        case .changeCredential(let current, let new):
            writer.byte(Tag.changeCredential.rawValue)
            current.encodeWire(to: &writer)
            new.encodeWire(to: &writer)
        }
    }

    static func decodeWire(from reader: inout WireReader, depth: Int) throws(KeychainError) -> KeychainOperation {
        let raw = try reader.byte("an operation")
        guard let tag = Tag(rawValue: raw) else { throw WireReader.unknownTag(raw, of: "operation") }
        switch tag {
        case .add: return .add(try NewItem.decodeWire(from: &reader))
        case .addAll:
            let count = try reader.count("the items to add", minimumSize: NewItem.minimumWireSize)
            var items: [NewItem] = []
            items.reserveCapacity(Swift.min(count, 16))
            for _ in 0..<count { items.append(try NewItem.decodeWire(from: &reader)) }
            return .addAll(items, tolerateExisting: try reader.bool("tolerateExisting"))
        case .upsert: return .upsert(try NewItem.decodeWire(from: &reader))
        case .updateFirstOrAdd:
            return .updateFirstOrAdd(
                match: try ItemQuery.decodeWire(from: &reader),
                changes: try ItemChanges.decodeWire(from: &reader),
                otherwise: try NewItem.decodeWire(from: &reader)
            )
        case .restore:
            return .restore(
                try NewItem.decodeWire(from: &reader),
                replacingExisting: try reader.bool("replacingExisting")
            )
        case .find: return .find(try FindRequest.decodeWire(from: &reader))
        case .exists: return .exists(try ItemQuery.decodeWire(from: &reader))
        case .update: return .update(try UpdateRequest.decodeWire(from: &reader))
        case .delete: return .delete(try DeleteRequest.decodeWire(from: &reader))
        case .batch:
            guard depth < WireReader.maximumDepth else {
                throw WireReader.malformed("batches nest deeper than \(WireReader.maximumDepth) levels")
            }
            let count = try reader.count("a batch's operations")
            var operations: [KeychainOperation] = []
            operations.reserveCapacity(Swift.min(count, 16))
            for _ in 0..<count { operations.append(try decodeWire(from: &reader, depth: depth + 1)) }
            return .batch(operations)
        case .lockState: return .lockState
        case .unlock: return .unlock(try UnlockCredential.decodeWire(from: &reader))
        case .lock: return .lock
        case .accessGroups: return .accessGroups
        case .changeCounter: return .changeCounter
        case .damagedItems:
            return .damagedItems(
                try ItemClass.decodeWire(from: &reader),
                includingSecrets: try reader.bool("includingSecrets")
            )
        case .verifyIntegrity: return .verifyIntegrity(acceptingCurrentState: try reader.bool("acceptingCurrentState"))
        case .changeCredential:
            return .changeCredential(
                current: try UnlockCredential.decodeWire(from: &reader),
                new: try UnlockCredential.decodeWire(from: &reader)
            )
        }
    }
}
