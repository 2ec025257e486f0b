import Foundation
import Latchkey
import Testing

/// Operations and outcomes grow without breaking callers: each names its kind (an open set whose raw value is
/// its wire tag, so a caller's `switch` keeps a `default:`), and an outcome is read with the accessor for what
/// the operation answers, which refuses any other outcome with `internalComponent` instead of trapping.
struct OperationKindTests {
    /// Every operation's kind is the tag its frame carries after the version byte, and its name is the kind's.
    @Test(arguments: OperationWireTests.operations + MaintenanceWireTests.operations)
    func anOperationsKindIsItsWireTag(_ operation: KeychainOperation) throws {
        let frame = try KeychainWireCodec.encode(operation)
        #expect(frame.dropFirst().first == operation.kind.rawValue)
        #expect(operation.name == operation.kind.description)
        #expect((1...KeychainOperation.Kind.highest.rawValue).contains(operation.kind.rawValue))
    }

    /// Every outcome's kind is the tag its frame carries after the version and reply bytes.
    @Test(arguments: OperationWireTests.outcomes + MaintenanceWireTests.outcomes)
    func anOutcomesKindIsItsWireTag(_ outcome: KeychainOutcome) throws {
        let frame = try KeychainWireCodec.encode(.success(outcome))
        #expect(frame.dropFirst(2).first == outcome.kind.rawValue)
        #expect((1...KeychainOutcome.Kind.highest.rawValue).contains(outcome.kind.rawValue))
    }

    /// Kinds are named; a kind this build does not define (a newer peer's) has a name too, never a trap.
    @Test func kindsAreNamedAndUnknownKindsToo() {
        #expect(KeychainOperation.Kind.find.description == "find")
        #expect(KeychainOperation.Kind.changeCredential.description == "changeCredential")
        #expect(KeychainOperation.Kind(rawValue: 200).description == "operation 200")
        #expect(KeychainOperation.Kind(rawValue: 0).description == "operation 0")
        #expect(KeychainOutcome.Kind.integrity.description == "integrity")
        #expect(KeychainOutcome.Kind(rawValue: 99).description == "outcome 99")
        let kinds = (1...KeychainOperation.Kind.highest.rawValue).map { KeychainOperation.Kind(rawValue: $0) }
        #expect(Set(kinds.map(\.description)).count == kinds.count, "every operation has its own name")
    }

    /// A caller tells operations apart with a `switch` over `kind` and a `default:`, which keeps compiling when
    /// an operation is added.
    @Test func aCallerSwitchesOverKindsWithADefault() {
        func isRead(_ operation: KeychainOperation) -> Bool {
            switch operation.kind {
            case .find, .exists, .lockState, .accessGroups, .changeCounter: true
            default: false
            }
        }
        #expect(isRead(.find(FindRequest(ItemQuery(.genericPassword)))))
        #expect(isRead(.lockState))
        #expect(!isRead(.lock))
        #expect(!isRead(.delete(DeleteRequest(ItemQuery(.key)))))
    }

    /// Each accessor answers its own outcome's value and refuses every other outcome with
    /// `internalComponent` (-2070) naming what was expected.
    @Test func eachAccessorAnswersItsOutcomeAndRefusesTheOthers() throws {
        let item = OperationWireTests.foundItem
        #expect(try KeychainOutcome.items([item]).items() == [item])
        #expect(try KeychainOutcome.count(3).count() == 3)
        #expect(try KeychainOutcome.exists(true).exists())
        #expect(try KeychainOutcome.lockState(.locked).lockState() == .locked)
        #expect(try KeychainOutcome.accessGroups(["g"]).accessGroups() == ["g"])
        #expect(try KeychainOutcome.changeCounter(7).changeCounter() == 7)
        #expect(try KeychainOutcome.restored(.duplicate).restored() == .duplicate)
        let damaged = DamagedItem(itemClass: .key, persistentReference: Data([1]))
        #expect(try KeychainOutcome.damagedItems([damaged]).damagedItems() == [damaged])
        #expect(try KeychainOutcome.batch([.count(0)]).batch() == [.count(0)])

        let accessors: [(String, (KeychainOutcome) throws(KeychainError) -> Void)] = [
            ("items", { (outcome) throws(KeychainError) in _ = try outcome.items() }),
            ("a count", { (outcome) throws(KeychainError) in _ = try outcome.count() }),
            ("a boolean", { (outcome) throws(KeychainError) in _ = try outcome.exists() }),
            ("a lock state", { (outcome) throws(KeychainError) in _ = try outcome.lockState() }),
            ("access groups", { (outcome) throws(KeychainError) in _ = try outcome.accessGroups() }),
            ("a change counter", { (outcome) throws(KeychainError) in _ = try outcome.changeCounter() }),
            ("a restore outcome", { (outcome) throws(KeychainError) in _ = try outcome.restored() }),
            ("damaged items", { (outcome) throws(KeychainError) in _ = try outcome.damagedItems() }),
            ("an integrity report", { (outcome) throws(KeychainError) in _ = try outcome.integrity() }),
            ("a batch", { (outcome) throws(KeychainError) in _ = try outcome.batch() }),
        ]
        // An outcome no accessor but `exists()` reads, and one no accessor but `count()` reads.
        for (outcome, reader) in [(KeychainOutcome.exists(false), "a boolean"), (.count(1), "a count")] {
            for (expected, accessor) in accessors where expected != reader {
                do {
                    try accessor(outcome)
                    Issue.record("\(outcome.kind) was read as \(expected)")
                } catch {
                    #expect(error.code == .internalComponent)
                    #expect(error.message.contains("other than \(expected)"), "\(error.message)")
                }
            }
        }
    }
}
