import Foundation

/// Where a pull resumes: the transaction id and row UUID of the last row a machine has pulled.
///
/// Rows are pulled in `(xid, row UUID)` order, and only rows whose transaction id is below the oldest
/// transaction still running on the server (`pg_snapshot_xmin(pg_current_snapshot())`): every transaction
/// below it has ended, so no row can later appear behind the cursor. A transaction that commits late keeps
/// the cursor before its rows until it ends, and its rows come in a later pull.
public struct SyncCursor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The transaction id (`xid8`) of the last row pulled; 0 before the first.
    public let transaction: UInt64
    /// The UUID of the last row pulled within `transaction`.
    public let rowID: UUID

    /// The cursor before every row.
    public static let start = SyncCursor(transaction: 0, rowID: UUID(bytes: [UInt8](repeating: 0, count: 16)))

    /// Makes a cursor (one a machine persisted).
    ///
    /// - Parameters:
    ///   - transaction: The last row's transaction id.
    ///   - rowID: The last row's UUID.
    public init(transaction: UInt64, rowID: UUID) {
        self.transaction = transaction
        self.rowID = rowID
    }

    /// `xid/row`.
    public var description: String { "\(transaction)/\(rowID)" }
}
