import Foundation

/// An outbox record and the item it names now (`nil` when the row is gone: replaced or purged since).
package struct SyncOutboxEntry: Sendable {
    /// The item's class.
    package var itemClass: ItemClass
    /// The item row's persistent identifier.
    package var persistref: Data
    /// The clock's reading of the change.
    package var stamp: SyncStamp
    /// The item as it is stored now, when it still exists and may leave the machine.
    package var item: SyncedItem?
}
