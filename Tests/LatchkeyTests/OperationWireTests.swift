import Foundation
import Latchkey
import Testing

/// The operation API's wire form: every operation and outcome survives a round trip, and frames of
/// another version or malformed frames are refused with clear errors.
struct OperationWireTests {
    static let query = ItemQuery(
        .internetPassword,
        attributes: [.server: .string("example.com"), .port: .number(443), .generic: .data(Data([0, 255]))],
        synchronizable: .any,
        hostOrSubdomain: "example.com"
    )

    static let operations: [KeychainOperation] = [
        .add(NewItem(.genericPassword, attributes: [.service: .string("s")], data: SecretData(string: "pw"))),
        .addAll([NewItem(.key, attributes: [:], data: nil)], tolerateExisting: true),
        .upsert(NewItem(.genericPassword, attributes: [.modificationDate: .date(Date(timeIntervalSince1970: 5))])),
        .find(FindRequest(query, limit: .count(3), withData: true, authentication: .ask, corruptRows: .skip)),
        .exists(query),
        .restore(NewItem(.certificate, attributes: [.label: .string("c")], data: nil), replacingExisting: true),
        .update(
            UpdateRequest(
                query,
                changes: ItemChanges(attributes: [.label: .string("l")], data: SecretData(string: "n"))
            )
        ),
        .delete(DeleteRequest(query, limit: .one)),
        .batch([.lock, .delete(DeleteRequest(query))]),
        .lockState, .unlock(.passphrase(SecretData(string: "p"))),
        .unlock(.keyFile(SecretData(Data(repeating: 1, count: 32)))),
        .lock, .accessGroups, .changeCounter,
    ]

    @Test(arguments: operations) func operationsRoundTrip(_ operation: KeychainOperation) throws {
        let frame = try KeychainWireCodec.encode(operation)
        #expect(try KeychainWireCodec.decodeOperation(frame) == operation)
    }

    @Test func outcomesAndErrorsRoundTrip() throws {
        let item = FoundItem(
            itemClass: .genericPassword,
            attributes: [.account: .string("a")],
            data: SecretData(string: "s"),
            persistentReference: Data(repeating: 2, count: 20)
        )
        let outcomes: [KeychainOutcome] = [
            .items([item]), .count(2), .exists(true), .lockState(.locked), .accessGroups(["g"]), .changeCounter(9),
            .restored(.replaced),
            .batch([.count(0)]),
        ]
        for outcome in outcomes {
            #expect(try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome))) == outcome)
        }
        let failure = try KeychainWireCodec.encode(.failure(KeychainError(.duplicateItem, "already there")))
        #expect(throws: KeychainError.self) { try KeychainWireCodec.decodeOutcome(failure) }
        do {
            _ = try KeychainWireCodec.decodeOutcome(failure)
        } catch {
            #expect(error.code == .duplicateItem)
            #expect(error.message == "already there")
        }
    }

    @Test func anotherVersionOrGarbageIsRefused() throws {
        var frame =
            try JSONSerialization.jsonObject(with: KeychainWireCodec.encode(.lockState)) as? [String: Any] ?? [:]
        frame["version"] = KeychainWireCodec.version + 1
        let future = try JSONSerialization.data(withJSONObject: frame)
        do {
            _ = try KeychainWireCodec.decodeOperation(future)
            Issue.record("a frame of another version was accepted")
        } catch {
            #expect(error.code == .unimplemented)
        }
        for garbage in [Data(), Data("{}".utf8), Data("{\"version\":1,\"body\":{\"nope\":{}}}".utf8), Data([0xFF, 0])] {
            do {
                _ = try KeychainWireCodec.decodeOperation(garbage)
                Issue.record("garbage was accepted")
            } catch {
                #expect(error.code == .decode)
            }
        }
    }

    @Test func aStoreExecutesDecodedOperations() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let add = try KeychainWireCodec.decodeOperation(
            KeychainWireCodec.encode(
                .add(NewItem(.genericPassword, attributes: [.service: .string("w")], data: SecretData(string: "x")))
            )
        )
        _ = try store.perform(add)
        let find = try KeychainWireCodec.decodeOperation(
            KeychainWireCodec.encode(
                .find(FindRequest(ItemQuery(.genericPassword, attributes: [.service: .string("w")]), withData: true))
            )
        )
        let reply = try KeychainWireCodec.encode(.success(try store.perform(find)))
        #expect(try KeychainWireCodec.decodeOutcome(reply).items().first?.data == SecretData(string: "x"))
    }
}
