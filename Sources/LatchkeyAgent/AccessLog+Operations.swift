import Foundation
import Latchkey

/// Which served operations the log records, and with which items.
extension AccessLog {
    /// Records `operation`, served to `application` through the socket with `outcome`: a find that returned
    /// secrets is a `read` of the items returned; writes (add, upsert, update, restore, and a batch's) are a
    /// `write` and deletes a `delete`, of the items written (or of the query's naming attributes). Other
    /// operations are not recorded.
    func record(
        _ operation: KeychainOperation,
        outcome: KeychainOutcome,
        application: AccessLogEntry.Application
    ) {
        var written: [AccessLogEntry.Item] = []
        var deleted: [AccessLogEntry.Item] = []
        if case .find(let request) = operation {
            guard request.withData, case .items(let found) = outcome else { return }
            let items = found.map { AccessLogEntry.Item($0.itemClass, attributes: $0.attributes) }
            record(AccessLogEntry(time: Date(), event: .read, items: items, application: application))
            return
        }
        collect(operation, outcome, written: &written, deleted: &deleted)
        if !written.isEmpty {
            record(AccessLogEntry(time: Date(), event: .write, items: written, application: application))
        }
        if !deleted.isEmpty {
            record(AccessLogEntry(time: Date(), event: .delete, items: deleted, application: application))
        }
    }

    private func collect(
        _ operation: KeychainOperation,
        _ outcome: KeychainOutcome?,
        written: inout [AccessLogEntry.Item],
        deleted: inout [AccessLogEntry.Item]
    ) {
        switch operation {
        case .add(let item), .upsert(let item), .restore(let item, _):
            if case .items(let stored)? = outcome, !stored.isEmpty {
                written += stored.map { AccessLogEntry.Item($0.itemClass, attributes: $0.attributes) }
            } else {
                written.append(AccessLogEntry.Item(item.itemClass, attributes: item.attributes))
            }
        case .addAll(let items, _):
            if case .items(let stored)? = outcome, !stored.isEmpty {
                written += stored.map { AccessLogEntry.Item($0.itemClass, attributes: $0.attributes) }
            } else {
                written += items.map { AccessLogEntry.Item($0.itemClass, attributes: $0.attributes) }
            }
        case .updateFirstOrAdd(let match, _, let otherwise):
            if case .items(let stored)? = outcome, !stored.isEmpty {
                written += stored.map { AccessLogEntry.Item($0.itemClass, attributes: $0.attributes) }
            } else {
                written.append(AccessLogEntry.Item(match.itemClass ?? otherwise.itemClass, attributes: match.attributes))
            }
        case .update(let request):
            written.append(Self.item(of: request.query))
        case .delete(let request):
            if case .count(0)? = outcome { return }
            deleted.append(Self.item(of: request.query))
        case .batch(let operations):
            var outcomes: [KeychainOutcome] = []
            if case .batch(let answered)? = outcome { outcomes = answered }
            for (index, inner) in operations.enumerated() {
                collect(inner, index < outcomes.count ? outcomes[index] : nil, written: &written, deleted: &deleted)
            }
        default:
            return
        }
    }

    /// The items a query names: its class and naming attributes (a query by persistent reference names none).
    private static func item(of query: ItemQuery) -> AccessLogEntry.Item {
        guard let itemClass = query.itemClass else { return AccessLogEntry.Item(itemClass: "item", fields: []) }
        return AccessLogEntry.Item(itemClass, attributes: query.attributes)
    }
}

extension AccessLogEntry {
    /// An entry of the socket allowed by the policy.
    fileprivate init(time: Date, event: Event, items: [Item], application: Application) {
        self.init(time: time, event: event, items: items, application: application, decision: .policy, channel: .socket)
    }
}
