import Foundation

extension KeychainOutcome {
    /// Which outcome a value is, without its values: an open set that grows with the outcomes, so a `switch`
    /// over it keeps a `default:` branch and compiles unchanged when an outcome is added.
    ///
    /// The raw value is the outcome's tag in the wire form (docs/wire-protocol.md).
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The outcome's tag in the wire form.
        public let rawValue: UInt8

        /// Makes a kind from its wire tag.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// `KeychainOutcome.items(_:)`.
        public static let items = Self(rawValue: 1)
        /// `KeychainOutcome.count(_:)`.
        public static let count = Self(rawValue: 2)
        /// `KeychainOutcome.exists(_:)`.
        public static let exists = Self(rawValue: 3)
        /// `KeychainOutcome.lockState(_:)`.
        public static let lockState = Self(rawValue: 4)
        /// `KeychainOutcome.accessGroups(_:)`.
        public static let accessGroups = Self(rawValue: 5)
        /// `KeychainOutcome.changeCounter(_:)`.
        public static let changeCounter = Self(rawValue: 6)
        /// `KeychainOutcome.restored(_:)`.
        public static let restored = Self(rawValue: 7)
        /// `KeychainOutcome.batch(_:)`.
        public static let batch = Self(rawValue: 8)
        /// `KeychainOutcome.damagedItems(_:)`.
        public static let damagedItems = Self(rawValue: 9)
        /// `KeychainOutcome.integrity(_:)`.
        public static let integrity = Self(rawValue: 10)

        /// The highest tag this build defines (tags run from 1 to it without gaps).
        package static let highest = integrity

        private static let names = [
            "items", "count", "exists", "lockState", "accessGroups", "changeCounter", "restored", "batch",
            "damagedItems", "integrity",
        ]

        /// The outcome's name (`items`), or `outcome 42` for a tag this build does not define.
        public var description: String {
            (1...Int(Self.highest.rawValue)).contains(Int(rawValue))
                ? Self.names[Int(rawValue) - 1] : "outcome \(rawValue)"
        }
    }

    /// Which outcome this is.
    public var kind: Kind {
        switch storage {
        case .items: .items
        case .count: .count
        case .exists: .exists
        case .lockState: .lockState
        case .accessGroups: .accessGroups
        case .changeCounter: .changeCounter
        case .restored: .restored
        case .batch: .batch
        case .damagedItems: .damagedItems
        case .integrity: .integrity
        }
    }
}
