/// Which items a `Keychain` sees and writes with respect to `kSecAttrSynchronizable`.
///
/// The synchronizable flag is part of an item's primary key, exactly as on Apple platforms: a local
/// item and a synchronizable item with the same service and key are two different items. Latchkey
/// keeps the flag (and the tombstones Apple leaves for deleted synchronizable items) so that data
/// moved to or from an Apple device keeps its meaning; nothing is synchronized over the network.
public enum SyncPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only local items (`sync = 0`): reads ignore synchronizable items; new items are local.
    case localOnly
    /// Only synchronizable items (`sync = 1`): reads ignore local items; new items are synchronizable.
    case synchronized
    /// Both (Apple's `kSecAttrSynchronizableAny`): reads see either kind; a write updates whichever
    /// exists, and a new item is local.
    case any

    /// The query filter for reads.
    var queryFilter: ItemQuery.Synchronizable {
        switch self {
        case .localOnly: .no
        case .synchronized: .yes
        case .any: .any
        }
    }

    /// The `sync` value of a new item.
    var newItemValue: AttributeValue { .bool(self == .synchronized) }
}
