import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `ItemTransaction` repeats the core's add/update/delete rules inside one transaction; these tests
/// pin the two implementations together.
struct KeychainTransactionParityTests {
    static let volatile: Set<AttributeName> = [.creationDate, .modificationDate, .sha1]

    private func stored(_ store: KeychainStore, account: String) throws -> [AttributeName: AttributeValue] {
        try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string(account)])).attributes
            .filter { !Self.volatile.contains($0.key) }
    }

    @Test(arguments: [
        [AttributeName: AttributeValue](),
        [.label: .string("L"), .comment: .string("C"), .accessible: .string("ck")],
        [.synchronizable: .number(1), .generic: .data(Data([1, 2])), .accessGroup: .string("com.example.tests")],
        [.accessible: .string("dku"), .type: .number(42), .itemDescription: .string("D")],
    ])
    func addStoresTheSameAttributesAsTheCore(_ extra: [AttributeName: AttributeValue]) throws {
        let test = try TestKeychain.inMemory()
        var core = extra
        core[.account] = .string("core")
        var transactional = extra
        transactional[.account] = .string("transaction")
        try test.store.add(.genericPassword, attributes: core, data: SecretData(string: "x"))
        try test.store.transaction { transaction in
            _ = try transaction.add(.genericPassword, attributes: transactional, data: SecretData(string: "x"))
        }
        let query = ItemQuery(.genericPassword, synchronizable: .any)
        let items = try test.store.find(query, limit: .all).map {
            $0.attributes.filter { !Self.volatile.contains($0.key) }
        }
        #expect(items.count == 2)
        var normalized = items.map { $0.filter { $0.key != .account } }
        #expect(normalized.removeFirst() == normalized.removeFirst())
    }

    @Test func updateMatchesTheCore() throws {
        let test = try TestKeychain.inMemory()
        for account in ["core", "transaction"] {
            try test.store.add(
                .genericPassword,
                attributes: [.account: .string(account), .accessible: .string("ak"), .synchronizable: .number(1)],
                data: SecretData(string: "x")
            )
        }
        let changes = ItemChanges(
            attributes: [.accessible: .string("ck"), .label: .string("new")],
            data: SecretData(string: "y")
        )
        try test.store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("core")], synchronizable: .any),
            with: changes
        )
        try test.store.transaction { transaction in
            let (plan, rows) = try transaction.find(
                ItemQuery(.genericPassword, attributes: [.account: .string("transaction")], synchronizable: .any),
                withData: true
            )
            for row in rows { try transaction.update(row, plan: plan, with: changes) }
        }
        let query = { (account: String) in
            ItemQuery(.genericPassword, attributes: [.account: .string(account)], synchronizable: .any)
        }
        var core = try test.store.findOne(query("core"), withData: true)
        var transactional = try test.store.findOne(query("transaction"), withData: true)
        #expect(core.data == transactional.data)
        for name in Self.volatile.union([.account]) {
            core.attributes[name] = nil
            transactional.attributes[name] = nil
        }
        #expect(core.attributes == transactional.attributes)
    }

    @Test func deleteOfSynchronizableItemsLeavesTheSameTombstone() throws {
        let test = try TestKeychain.inMemory()
        for account in ["core", "transaction"] {
            try test.store.add(
                .genericPassword,
                attributes: [.account: .string(account), .synchronizable: .number(1)],
                data: SecretData(string: "x")
            )
        }
        try test.store.delete(
            ItemQuery(.genericPassword, attributes: [.account: .string("core")], synchronizable: .yes)
        )
        try test.store.transaction { transaction in
            let (plan, rows) = try transaction.find(
                ItemQuery(.genericPassword, attributes: [.account: .string("transaction")], synchronizable: .yes),
                withData: false
            )
            for row in rows { try transaction.delete(row, plan: plan) }
        }
        let tombstones = try test.store.find(
            ItemQuery(.genericPassword, synchronizable: .yes, includeTombstones: true),
            limit: .all
        ).map { $0.attributes.filter { !Self.volatile.contains($0.key) && $0.key != .account } }
        #expect(tombstones.count == 2)
        #expect(tombstones.first == tombstones.last)
        #expect(tombstones.first?[.tombstone] == .number(1))
    }

    @Test func addOverATombstoneReplacesItLikeTheCore() throws {
        let test = try TestKeychain.inMemory()
        let attributes: [AttributeName: AttributeValue] = [.account: .string("a"), .synchronizable: .number(1)]
        try test.store.add(.genericPassword, attributes: attributes, data: nil)
        try test.store.delete(ItemQuery(.genericPassword, attributes: [.account: .string("a")], synchronizable: .yes))
        try test.store.transaction { transaction in
            _ = try transaction.add(.genericPassword, attributes: attributes, data: SecretData(string: "again"))
        }
        #expect(
            try test.store.findOne(ItemQuery(.genericPassword, synchronizable: .yes), withData: true).data
                == SecretData(string: "again")
        )
    }

    @Test func failedTransactionBumpsNothingAndWritesNothing() throws {
        let test = try TestKeychain.inMemory()
        let counter = try test.store.changeCounter()
        #expect(throws: KeychainError.self) {
            try test.store.transaction { transaction in
                try transaction.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
                try transaction.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
            }
        }
        #expect(try test.store.changeCounter() == counter)
        #expect(throws: KeychainError.self) { try test.store.findOne(ItemQuery(.genericPassword)) }
    }
}
