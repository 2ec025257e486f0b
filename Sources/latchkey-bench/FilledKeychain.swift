import Foundation
import Latchkey

/// The keychain every suite measures: `items` generic passwords (service "bench", account "user-<i>",
/// 32-byte secret), created with the testing KDF cost so that setup is fast.
///
/// It is filled through the public API in durable transactions of `fillBatch` items each
/// (`KeychainOperation.addAll`: every item is added as by `add`, with its defaults and uniqueness check),
/// so that 100 000 items take seconds instead of 100 000 disk flushes; the time is reported as
/// `fill-seconds`. After filling, the WAL is checkpointed and the file size per item is reported as
/// `disk-bytes-per-item`.
final class FilledKeychain {
    static let service = "bench"
    /// Items added per fill transaction.
    static let fillBatch = 1000
    /// Not `latchkey.bench`: groups starting with `latchkey.` are reserved (`AccessPolicy.isReserved`).
    static let accessGroup = "org.latchkey.bench"

    let path: String
    let passphrase: SecretData
    let store: KeychainStore
    /// The number of items put in by the fill.
    let items: Int
    /// Accounts currently stored under `service` (suites that add or delete keep this up to date).
    var accounts: [String]

    static func account(_ index: Int) -> String { "user-\(index)" }

    /// The attributes of the item `account`.
    static func attributes(account: String) -> [AttributeName: AttributeValue] {
        [.service: .string(service), .account: .string(account)]
    }

    /// The query naming one item by its primary-key attributes (service and account).
    static func query(account: String) -> ItemQuery {
        ItemQuery(.genericPassword, attributes: attributes(account: account))
    }

    /// Creates the keychain and fills it with `context.options.items` items.
    init(_ context: inout BenchmarkContext) throws {
        items = context.options.items
        path = context.directory.keychain("bench")
        passphrase = SecretData(string: "latchkey-bench passphrase")
        store = try KeychainStore.create(
            path: path,
            credentials: [.passphrase(passphrase)],
            options: context.storeOptions(kdfCost: .testing)
        )
        accounts = (0..<items).map(Self.account)
        context.progress("filling \(items) items (\(Self.fillBatch) per durable transaction)")
        let start = Stopwatch.now()
        var nextReport = max(items / 10, 1)
        for first in stride(from: 0, to: items, by: Self.fillBatch) {
            let batch = (first..<min(first + Self.fillBatch, items)).map { index in
                NewItem(.genericPassword, attributes: Self.attributes(account: accounts[index]), data: context.secret())
            }
            let added = try store.perform(.addAll(batch, tolerateExisting: false)).items()
            guard added.count == batch.count else {
                throw BenchmarkFailure("the fill added \(added.count) of \(batch.count) items")
            }
            let filled = first + batch.count
            if filled >= nextReport, items >= 10_000 {
                let seconds = Double(Stopwatch.now() - start) / 1e9
                context.progress("  \(filled) items after \(String(format: "%.1f", seconds)) s")
                nextReport += max(items / 10, 1)
            }
        }
        let seconds = Double(Stopwatch.now() - start) / 1e9
        context.report.add("fill-seconds", items: items, value: seconds, unit: "s")
        try store.checkpoint()
        let bytes = SystemProbe.fileSize(path) + SystemProbe.fileSize(path + "-wal")
        context.report.add("disk-bytes-per-item", items: items, value: Double(bytes) / Double(items), unit: "bytes")
    }
}
