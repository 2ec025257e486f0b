import Foundation
import Latchkey

/// Which served operations the log records, and with which items.
extension AccessLog {
    /// Records `operation`, served to `application` through the socket with `outcome`: a find that returned
    /// secrets is a `read` of the items returned; writes (add, upsert, update, restore, and a batch's) are a
    /// `write` and deletes a `delete`, of the items written (or of the query's naming attributes). Other
    /// operations are not recorded.
    ///
    /// This runs on the request's thread: it only shares the items' attribute dictionaries with the entry;
    /// the writer thread turns them into text.
    func record(
        _ operation: KeychainOperation,
        outcome: KeychainOutcome,
        application: AccessLogEntry.Application
    ) {
        if case .find(let request) = operation.storage {
            guard request.withData, case .items(let found) = outcome.storage else { return }
            let named = found.map { AccessLogRecord.Named(itemClass: $0.itemClass, attributes: $0.attributes) }
            record(Self.record(.read, named, application))
            return
        }
        var written: [AccessLogRecord.Named] = []
        var deleted: [AccessLogRecord.Named] = []
        collect(operation, outcome, written: &written, deleted: &deleted)
        if !written.isEmpty { record(Self.record(.write, written, application)) }
        if !deleted.isEmpty { record(Self.record(.delete, deleted, application)) }
    }

    private static func record(
        _ event: AccessLogEntry.Event,
        _ named: [AccessLogRecord.Named],
        _ application: AccessLogEntry.Application
    ) -> AccessLogRecord {
        AccessLogRecord(
            entry: AccessLogEntry(
                time: Date(),
                event: event,
                items: [],
                application: application,
                decision: .policy,
                channel: .socket
            ),
            named: named
        )
    }

    private func collect(
        _ operation: KeychainOperation,
        _ outcome: KeychainOutcome?,
        written: inout [AccessLogRecord.Named],
        deleted: inout [AccessLogRecord.Named]
    ) {
        switch operation.storage {
        case .add(let item), .upsert(let item), .restore(let item, _):
            if case .items(let stored)? = outcome?.storage, !stored.isEmpty {
                written += stored.map { AccessLogRecord.Named(itemClass: $0.itemClass, attributes: $0.attributes) }
            } else {
                written.append(AccessLogRecord.Named(itemClass: item.itemClass, attributes: item.attributes))
            }
        case .addAll(let items, _):
            if case .items(let stored)? = outcome?.storage, !stored.isEmpty {
                written += stored.map { AccessLogRecord.Named(itemClass: $0.itemClass, attributes: $0.attributes) }
            } else {
                written += items.map { AccessLogRecord.Named(itemClass: $0.itemClass, attributes: $0.attributes) }
            }
        case .updateFirstOrAdd(let match, _, let otherwise):
            if case .items(let stored)? = outcome?.storage, !stored.isEmpty {
                written += stored.map { AccessLogRecord.Named(itemClass: $0.itemClass, attributes: $0.attributes) }
            } else {
                written.append(
                    AccessLogRecord.Named(
                        itemClass: match.itemClass ?? otherwise.itemClass,
                        attributes: match.attributes
                    )
                )
            }
        case .update(let request):
            written.append(Self.named(request.query))
        case .delete(let request):
            if case .count(0)? = outcome?.storage { return }
            deleted.append(Self.named(request.query))
        case .batch(let operations):
            var outcomes: [KeychainOutcome] = []
            if case .batch(let answered)? = outcome?.storage { outcomes = answered }
            for (index, inner) in operations.enumerated() {
                collect(inner, index < outcomes.count ? outcomes[index] : nil, written: &written, deleted: &deleted)
            }
        default:
            return
        }
    }

    /// The item a query names: its class and attributes.
    private static func named(_ query: ItemQuery) -> AccessLogRecord.Named {
        AccessLogRecord.Named(itemClass: query.itemClass, attributes: query.attributes)
    }
}
