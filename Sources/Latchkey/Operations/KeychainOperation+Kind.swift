import Foundation

extension KeychainOperation {
    /// Which operation a value is, without its values: an open set that grows with the operations, so a
    /// `switch` over it keeps a `default:` branch and compiles unchanged when an operation is added.
    ///
    /// The raw value is the operation's tag in the wire form (docs/wire-protocol.md); a kind this build does
    /// not define can be made from a raw value but never comes out of a decoded frame.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The operation's tag in the wire form.
        public let rawValue: UInt8

        /// Makes a kind from its wire tag.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// `KeychainOperation.add(_:)`.
        public static let add = Self(rawValue: 1)
        /// `KeychainOperation.addAll(_:tolerateExisting:)`.
        public static let addAll = Self(rawValue: 2)
        /// `KeychainOperation.upsert(_:)`.
        public static let upsert = Self(rawValue: 3)
        /// `KeychainOperation.updateFirstOrAdd(match:changes:otherwise:)`.
        public static let updateFirstOrAdd = Self(rawValue: 4)
        /// `KeychainOperation.restore(_:replacingExisting:)`.
        public static let restore = Self(rawValue: 5)
        /// `KeychainOperation.find(_:)`.
        public static let find = Self(rawValue: 6)
        /// `KeychainOperation.exists(_:)`.
        public static let exists = Self(rawValue: 7)
        /// `KeychainOperation.update(_:)`.
        public static let update = Self(rawValue: 8)
        /// `KeychainOperation.delete(_:)`.
        public static let delete = Self(rawValue: 9)
        /// `KeychainOperation.batch(_:)`.
        public static let batch = Self(rawValue: 10)
        /// `KeychainOperation.lockState`.
        public static let lockState = Self(rawValue: 11)
        /// `KeychainOperation.unlock(_:)`.
        public static let unlock = Self(rawValue: 12)
        /// `KeychainOperation.lock`.
        public static let lock = Self(rawValue: 13)
        /// `KeychainOperation.accessGroups`.
        public static let accessGroups = Self(rawValue: 14)
        /// `KeychainOperation.changeCounter`.
        public static let changeCounter = Self(rawValue: 15)
        /// `KeychainOperation.damagedItems(_:includingSecrets:)`.
        public static let damagedItems = Self(rawValue: 16)
        /// `KeychainOperation.verifyIntegrity(acceptingCurrentState:)`.
        public static let verifyIntegrity = Self(rawValue: 17)
        /// `KeychainOperation.changeCredential(current:new:)`.
        public static let changeCredential = Self(rawValue: 18)

        /// The highest tag this build defines (tags run from 1 to it without gaps).
        package static let highest = changeCredential

        private static let names = [
            "add", "addAll", "upsert", "updateFirstOrAdd", "restore", "find", "exists", "update", "delete", "batch",
            "lockState", "unlock", "lock", "accessGroups", "changeCounter", "damagedItems", "verifyIntegrity",
            "changeCredential",
        ]

        /// The operation's name (`find`), or `operation 42` for a tag this build does not define.
        public var description: String {
            (1...Int(Self.highest.rawValue)).contains(Int(rawValue))
                ? Self.names[Int(rawValue) - 1] : "operation \(rawValue)"
        }
    }

    /// Which operation this is.
    public var kind: Kind {
        switch storage {
        case .add: .add
        case .addAll: .addAll
        case .upsert: .upsert
        case .updateFirstOrAdd: .updateFirstOrAdd
        case .restore: .restore
        case .find: .find
        case .exists: .exists
        case .update: .update
        case .delete: .delete
        case .batch: .batch
        case .lockState: .lockState
        case .unlock: .unlock
        case .lock: .lock
        case .accessGroups: .accessGroups
        case .changeCounter: .changeCounter
        case .damagedItems: .damagedItems
        case .verifyIntegrity: .verifyIntegrity
        case .changeCredential: .changeCredential
        }
    }

    /// The operation's name, for logs (never its values).
    public var name: String { kind.description }
}
