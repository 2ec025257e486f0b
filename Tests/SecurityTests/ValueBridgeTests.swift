#if !canImport(Darwin)
import Dispatch
import Foundation
import Testing

@testable import LatchkeySecurity

/// The fast paths of the `SecItem*` translation give what the slower Foundation calls they replace give:
/// `ValueBridge.entries(of:)` reads a dictionary in one pass instead of `for (key, value) in dictionary`,
/// and the last error message lives in thread-specific storage instead of the thread dictionary.
struct ValueBridgeTests {
    private struct Opaque { var number = 1 }
    private final class Reference {}

    /// One value of every class a keychain dictionary can hold, Swift values that Foundation boxes included.
    private static func everyKind() -> [String: Any] {
        [
            "string": "text", "mutableString": NSMutableString(string: "mutable"), "true": true, "false": false,
            "cfTrue": kCFBooleanTrue as Any, "numberTrue": NSNumber(value: true), "int": 42, "double": 2.5,
            "number": NSNumber(value: 7), "data": Data([1, 2, 3]), "nsData": NSData(data: Data([4])),
            "date": Date(timeIntervalSinceReferenceDate: 1000), "uuid": UUID(), "null": NSNull(),
            "none": Int?.none as Any, "array": [1, 2], "dictionary": ["a": 1], "struct": Opaque(),
            "class": Reference(), "accessControl": SecAccessControl(protection: "ak", flags: []),
        ]
    }

    private static func describe(_ value: Any) -> String {
        "\(type(of: value)): \(String(reflecting: value))"
    }

    @Test(arguments: [false, true])
    func entriesAreWhatIterationGivesInTheSameOrder(mutable: Bool) {
        let dictionary: NSDictionary =
            mutable ? NSMutableDictionary(dictionary: Self.everyKind()) : Self.everyKind() as NSDictionary
        let iterated = dictionary.map { (key: $0.key, value: $0.value) }
        let read = ValueBridge.entries(of: dictionary)
        #expect(read.count == iterated.count)
        for (expected, actual) in zip(iterated, read) {
            #expect(Self.describe(actual.key) == Self.describe(expected.key))
            #expect(Self.describe(actual.value) == Self.describe(expected.value))
            if type(of: expected.value) is AnyClass {
                let sameObject =
                    ObjectIdentifier(actual.value as AnyObject) == ObjectIdentifier(expected.value as AnyObject)
                #expect(sameObject)
            }
        }
    }

    @Test func lastErrorMessageBelongsToItsThread() {
        LastErrorSlot.record("on the test's thread")
        defer { LastErrorSlot.record(nil) }
        let other = OtherThread()
        let thread = Thread {
            other.before = LastErrorSlot.message
            LastErrorSlot.record("on another thread")
            other.after = LastErrorSlot.message
            other.finished.signal()
        }
        thread.start()
        other.finished.wait()
        #expect(other.before == nil)
        #expect(other.after == "on another thread")
        #expect(LatchkeySecurity.lastErrorMessage == "on the test's thread")
        LastErrorSlot.record(nil)
        #expect(LatchkeySecurity.lastErrorMessage == nil)
    }
}

/// What the other thread of `lastErrorMessageBelongsToItsThread` saw.
private final class OtherThread: @unchecked Sendable {
    // SAFETY: the other thread writes `before` and `after` before signalling `finished`; the test reads them
    // only after waiting on it.
    var before: String?
    var after: String?
    let finished = DispatchSemaphore(value: 0)
}
#endif
