import Foundation
import Latchkey
import LatchkeySecurity

/// The same operations as `StoreBenchmarks`, through Apple's `SecItem*` dictionaries on the filled
/// keychain, so the cost of the dictionary translation shows beside the typed core:
/// `secitem-find-data` (kSecReturnData + kSecMatchLimitOne by service + account), `secitem-find-attributes`
/// (kSecReturnAttributes), `secitem-update` (a new kSecValueData), `secitem-add` and `secitem-delete`.
/// Each read is timed right after the same find through the core (`secitem-find-data-core`,
/// `secitem-find-attributes-core`), its floor. `secitem-query-bridging` times the caller's
/// `[String: Any] as CFDictionary` of that query alone (part of each `SecItemCopyMatching` measurement).
enum SecItemBenchmarks: BenchmarkSuite {
    static let name = "secitem"
    static let warmUp = 200

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        LatchkeySecurity.useStore(keychain.store)
        defer { LatchkeySecurity.useStore(nil) }
        let samples = context.options.samples
        let accounts = keychain.accounts
        func lookup(_ account: String, _ returnKey: CFString) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: FilledKeychain.service,
                kSecAttrAccount as String: account,
                returnKey as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
            ]
        }
        for (op, returnKey, withData) in [
            ("secitem-find-data", kSecReturnData, true), ("secitem-find-attributes", kSecReturnAttributes, false),
        ]
        where context.options.includes(op) {
            context.progress("\(name): \(op)")
            let picks = (0..<(warmUp + samples)).map { _ in accounts[context.index(below: accounts.count)] }
            for run in 0..<warmUp { try copyMatching(lookup(picks[run], returnKey)) }
            // Each SecItemCopyMatching right after the same find through the core, so that the difference
            // is the translation's cost at that moment.
            let measured = try context.measurePaired(
                samples,
                floor: { run in
                    _ = try keychain.store.findOne(
                        FilledKeychain.query(account: picks[warmUp + run]),
                        withData: withData
                    )
                },
                { run in try copyMatching(lookup(picks[warmUp + run], returnKey)) }
            )
            context.report.add(op + "-core", items: keychain.items, measured.floor)
            context.report.add(op, items: keychain.items, measured.operation)
        }
        if context.options.includes("secitem-query-bridging") {
            // The caller's own `[String: Any] as CFDictionary` of the finds' query, which the finds above
            // include: swift-corelibs-foundation bridges every key and value, where Apple's is toll-free.
            context.progress("\(name): secitem-query-bridging")
            let picks = (0..<samples).map { _ in accounts[context.index(below: accounts.count)] }
            let measurement = try context.measure(samples) { run in
                (lookup(picks[run], kSecReturnData) as CFDictionary).count
            }
            context.report.add("secitem-query-bridging", items: keychain.items, measurement)
        }
        if context.options.includes("secitem-update") {
            context.progress("\(name): secitem-update")
            let picks = (0..<samples).map { _ in accounts[context.index(below: accounts.count)] }
            let secrets = (0..<samples).map { _ in context.secret().data }
            let measurement = try context.measure(samples) { run in
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: FilledKeychain.service,
                    kSecAttrAccount as String: picks[run],
                ]
                let changes: [String: Any] = [kSecValueData as String: secrets[run]]
                try check(SecItemUpdate(query as CFDictionary, changes as CFDictionary), "SecItemUpdate")
            }
            context.report.add("secitem-update", items: keychain.items, measurement)
        }
        if context.options.includes("secitem-add") || context.options.includes("secitem-delete") {
            context.progress("\(name): secitem-add, secitem-delete")
            let secrets = (0..<samples).map { _ in context.secret().data }
            func item(_ run: Int) -> [String: Any] {
                [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: "bench-secitem",
                    kSecAttrAccount as String: "secitem-\(run)",
                ]
            }
            let adds = try context.measure(samples) { run in
                var attributes = item(run)
                attributes[kSecValueData as String] = secrets[run]
                try check(SecItemAdd(attributes as CFDictionary, nil), "SecItemAdd")
            }
            let deletes = try context.measure(samples) { run in
                try check(SecItemDelete(item(run) as CFDictionary), "SecItemDelete")
            }
            if context.options.includes("secitem-add") {
                context.report.add("secitem-add", items: keychain.items, adds)
            }
            if context.options.includes("secitem-delete") {
                context.report.add("secitem-delete", items: keychain.items, deletes)
            }
        }
    }

    private static func copyMatching(_ query: [String: Any]) throws {
        var result: CFTypeRef?
        try check(SecItemCopyMatching(query as CFDictionary, &result), "SecItemCopyMatching")
        guard result != nil else { throw BenchmarkFailure("SecItemCopyMatching returned no value") }
    }

    private static func check(_ status: OSStatus, _ call: String) throws {
        guard status == errSecSuccess else { throw BenchmarkFailure("\(call) returned OSStatus \(status)") }
    }
}
