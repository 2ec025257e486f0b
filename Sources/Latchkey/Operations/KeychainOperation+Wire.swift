import Foundation

// The wire form (docs/wire-protocol.md, "Operations") of an operation: its tag (`KeychainOperation.Kind`'s raw
// value), then the case's values in declaration order. A new operation takes the next free tag without changing
// the protocol version; both switches below are exhaustive, so the compiler points at a case without an encoding,
// and a peer that does not know a tag refuses it with `WireReader.unknownTag` (naming its version).

extension KeychainOperation {
    func encodeWire(to writer: inout WireWriter, depth: Int) throws(KeychainError) {
        switch storage {
        case .add(let item):
            writer.byte(Kind.add.rawValue)
            item.encodeWire(to: &writer)
        case .addAll(let items, let tolerateExisting):
            writer.byte(Kind.addAll.rawValue)
            writer.varint(UInt64(items.count))
            for item in items { item.encodeWire(to: &writer) }
            writer.bool(tolerateExisting)
        case .upsert(let item):
            writer.byte(Kind.upsert.rawValue)
            item.encodeWire(to: &writer)
        case .updateFirstOrAdd(let match, let changes, let otherwise):
            writer.byte(Kind.updateFirstOrAdd.rawValue)
            match.encodeWire(to: &writer)
            changes.encodeWire(to: &writer)
            otherwise.encodeWire(to: &writer)
        case .restore(let item, let replacingExisting):
            writer.byte(Kind.restore.rawValue)
            item.encodeWire(to: &writer)
            writer.bool(replacingExisting)
        case .find(let request):
            writer.byte(Kind.find.rawValue)
            request.encodeWire(to: &writer)
        case .exists(let query):
            writer.byte(Kind.exists.rawValue)
            query.encodeWire(to: &writer)
        case .update(let request):
            writer.byte(Kind.update.rawValue)
            request.encodeWire(to: &writer)
        case .delete(let request):
            writer.byte(Kind.delete.rawValue)
            request.encodeWire(to: &writer)
        case .batch(let operations):
            guard depth < WireReader.maximumDepth else {
                throw KeychainError(.param, "A batch nests deeper than \(WireReader.maximumDepth) levels.")
            }
            writer.byte(Kind.batch.rawValue)
            writer.varint(UInt64(operations.count))
            for operation in operations { try operation.encodeWire(to: &writer, depth: depth + 1) }
        case .lockState: writer.byte(Kind.lockState.rawValue)
        case .unlock(let credential):
            writer.byte(Kind.unlock.rawValue)
            credential.encodeWire(to: &writer)
        case .lock: writer.byte(Kind.lock.rawValue)
        case .accessGroups: writer.byte(Kind.accessGroups.rawValue)
        case .changeCounter: writer.byte(Kind.changeCounter.rawValue)
        case .damagedItems(let itemClass, let includingSecrets):
            writer.byte(Kind.damagedItems.rawValue)
            writer.byte(itemClass.wireTag)
            writer.bool(includingSecrets)
        case .verifyIntegrity(let acceptingCurrentState):
            writer.byte(Kind.verifyIntegrity.rawValue)
            writer.bool(acceptingCurrentState)
        case .changeCredential(let current, let new):
            writer.byte(Kind.changeCredential.rawValue)
            current.encodeWire(to: &writer)
            new.encodeWire(to: &writer)
        }
    }

    static func decodeWire(from reader: inout WireReader, depth: Int) throws(KeychainError) -> KeychainOperation {
        let tag = Kind(rawValue: try reader.byte("an operation"))
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
        default: throw WireReader.unknownTag(tag.rawValue, of: "operation", highest: Kind.highest.rawValue)
        }
    }
}
