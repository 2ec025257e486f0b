import Foundation

/// A synchronizable item changed on this machine and not yet sent (a row of `sync_outbox`): which row, and
/// the sync clock's reading of the change.
package struct SyncOutboxRow: Sendable, Equatable {
    /// The item's table.
    package var table: ItemTable
    /// The item row's persistent identifier.
    package var persistref: Data
    /// The sync clock's milliseconds at the change.
    package var milliseconds: Int64
    /// The sync clock's counter at the change.
    package var counter: Int64

    package init(table: ItemTable, persistref: Data, milliseconds: Int64, counter: Int64) {
        self.table = table
        self.persistref = persistref
        self.milliseconds = milliseconds
        self.counter = counter
    }
}

/// What this machine holds of one synced row (a row of `sync_rows`): the server version it last saw or
/// sent, and the sealed row it is sending, if any (opaque to storage).
package struct SyncRowState: Sendable, Equatable {
    /// The server version of the row this machine's copy corresponds to.
    package var version: Int64
    /// The encoded row being sent (resent as it is until the server answers), or `nil`.
    package var pending: Data?

    package init(version: Int64, pending: Data?) {
        self.version = version
        self.pending = pending
    }
}
