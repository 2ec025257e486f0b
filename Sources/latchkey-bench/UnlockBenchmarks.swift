import Foundation
import Latchkey

/// Unlocking the filled keychain with a passphrase: `lock()` then a timed `unlock(with:)`, which reads
/// the slots, runs scrypt and unwraps the class and index keys.
///
/// - `unlock-testing`: the fill's testing-cost slot (scrypt N = 2^10), 10 × `--unlock-samples` runs;
/// - `unlock-standard`: a standard-cost slot (scrypt N = 2^17, r = 8, p = 1, 128 MiB), written by
///   reopening the file with `kdfCost: .standard` and changing the passphrase; `--unlock-samples` runs.
enum UnlockBenchmarks: BenchmarkSuite {
    static let name = "unlock"

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        let items = keychain.items
        let store = keychain.store
        if context.options.includes("unlock-testing") {
            context.progress("\(name): testing cost")
            let testing = try context.measure(context.options.unlockSamples * 10) { _ in
                store.lock()
                try store.unlock(with: .passphrase(keychain.passphrase))
            }
            context.report.add("unlock-testing", items: items, testing)
        }
        guard context.options.includes("unlock-standard") else { return }
        context.progress("\(name): standard cost")
        let standard = try KeychainStore.open(
            path: keychain.path,
            credentials: [.passphrase(keychain.passphrase)],
            createIfMissing: false,
            options: context.storeOptions(kdfCost: .standard)
        )
        let standardPassphrase = SecretData(string: "latchkey-bench standard passphrase")
        try standard.changePassphrase(to: standardPassphrase)
        let measurement = try context.measure(context.options.unlockSamples) { _ in
            standard.lock()
            try standard.unlock(with: .passphrase(standardPassphrase))
        }
        context.report.add("unlock-standard", items: items, measurement)
        try standard.close()
    }
}
