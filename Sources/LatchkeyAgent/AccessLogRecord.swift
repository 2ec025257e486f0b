import Foundation
import Latchkey

/// An entry as a request hands it to the writer: the items it names are still the found (or written) items'
/// attribute dictionaries, shared rather than copied, so that the request does not spend its time turning
/// them into text; the writer thread does (`resolved()`).
struct AccessLogRecord: Sendable {
    /// Items named by a class and an attribute dictionary (never a secret).
    struct Named: Sendable {
        /// The item's class; `nil` for a query by persistent reference alone (logged as class `item`).
        var itemClass: ItemClass?
        /// Its attributes (or a query's).
        var attributes: [AttributeName: AttributeValue]
    }

    /// The entry, without the items of `named`.
    var entry: AccessLogEntry
    /// Items still to be named, after `entry.items`.
    var named: [Named] = []

    /// The entry with every item named.
    func resolved() -> AccessLogEntry {
        guard !named.isEmpty else { return entry }
        var complete = entry
        complete.items += named.map { named in
            named.itemClass.map { AccessLogEntry.Item($0, attributes: named.attributes) }
                ?? AccessLogEntry.Item(itemClass: "item", fields: [])
        }
        return complete
    }
}
