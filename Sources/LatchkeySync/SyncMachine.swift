import Foundation

/// A machine of a sync keychain, as the server lists it (`latchkey sync machines`).
public struct SyncMachine: Sendable, Hashable, Codable {
    /// The machine's id.
    public var id: UUID
    /// `approved` or `revoked` (`pending` while it waits for approval).
    public var state: String
    /// When it joined.
    public var joined: Date
    /// When its state last changed.
    public var updated: Date
    /// Whether it is the machine asking.
    public var isThisMachine: Bool
}
