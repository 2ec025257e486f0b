import Foundation
import Latchkey

/// The typed `Keychain` API on the filled keychain: `keychain-get-string` / `keychain-set-string` (an
/// existing key, so `set` is the update path of its upsert) and the same for a small `Codable` struct
/// (`keychain-get-codable`, `keychain-set-codable`, JSON-encoded). Compare with `find-primary-key` and
/// `update` of the store suite for the API's own cost.
enum TypedAPIBenchmarks: BenchmarkSuite {
    static let name = "typed"
    static let warmUp = 200
    static let keys = 100

    /// A small Codable value, as apps store sessions.
    struct Session: Codable, Equatable, Sendable {
        var user: String
        var expires: Date
        var scopes: [String]
    }

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        let typed = Keychain(service: "bench-typed", store: keychain.store)
        let samples = context.options.samples
        let session = Session(user: "alice", expires: Date(timeIntervalSince1970: 2_000_000_000), scopes: ["read"])
        for index in 0..<keys {
            try typed.set("value-\(index)", forKey: "string-\(index)")
            try typed.set(session, forKey: "codable-\(index)")
        }
        let picks = (0..<(warmUp + samples)).map { _ in context.index(below: keys) }
        if context.options.includes("keychain-get-string") {
            context.progress("\(name): keychain-get-string")
            for run in 0..<warmUp { _ = try typed.string(forKey: "string-\(picks[run])") }
            let measurement = try context.measure(samples) { run in
                let key = picks[warmUp + run]
                guard try typed.string(forKey: "string-\(key)") == "value-\(key)" else {
                    throw BenchmarkFailure("get returned another string")
                }
            }
            context.report.add("keychain-get-string", items: keychain.items, measurement)
        }
        if context.options.includes("keychain-get-codable") {
            context.progress("\(name): keychain-get-codable")
            let measurement = try context.measure(samples) { run in
                guard try typed.value(Session.self, forKey: "codable-\(picks[warmUp + run])") == session else {
                    throw BenchmarkFailure("get returned another value")
                }
            }
            context.report.add("keychain-get-codable", items: keychain.items, measurement)
        }
        if context.options.includes("keychain-set-string") {
            context.progress("\(name): keychain-set-string")
            let measurement = try context.measure(samples) { run in
                try typed.set("new-\(run)", forKey: "string-\(picks[run])")
            }
            context.report.add("keychain-set-string", items: keychain.items, measurement)
        }
        if context.options.includes("keychain-set-codable") {
            context.progress("\(name): keychain-set-codable")
            let measurement = try context.measure(samples) { run in
                var changed = session
                changed.scopes = ["read", "\(run)"]
                try typed.set(changed, forKey: "codable-\(picks[run])")
            }
            context.report.add("keychain-set-codable", items: keychain.items, measurement)
        }
    }
}
