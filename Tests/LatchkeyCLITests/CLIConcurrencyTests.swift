import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Several `latchkey` processes writing one keychain at the same time.
struct CLIConcurrencyTests {
    /// Runs `script` in `count` shells at once and waits for all of them.
    func runConcurrently(_ count: Int, environment: [String: String], script: @escaping @Sendable (Int) -> String)
        throws
        -> [CLIRunner.Result]
    {
        let results = Results(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { worker in
            let result = try? CLIRunner.run("/bin/sh", ["-c", script(worker)], environment: environment, timeout: 300)
            results.set(worker, result)
        }
        return try results.all.map { try #require($0) }
    }

    @Test func concurrentAddsFromSeparateProcessesAreAllKept() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LK"] = BuiltExecutable.latchkey
        let perWorker = 15
        let results = try runConcurrently(3, environment: environment) { worker in
            """
            set -e
            i=0
            while [ $i -lt \(perWorker) ]; do
              printf 'secret-\(worker)-%s' $i | "$LK" add-generic-password -s concurrent -a "w\(worker)-$i" --password-stdin
              "$LK" add-generic-password -U -s shared -a shared -w "from-\(worker)-$i"
              i=$((i+1))
            done
            """
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }

        let store = try keychain.open()
        let items = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("concurrent")]),
            limit: .all,
            withData: true
        )
        #expect(items.count == 3 * perWorker)
        for item in items {
            let account = try #require(item.attributes[.account]?.stringValue)
            let parts = account.dropFirst().split(separator: "-")
            #expect(item.data == SecretData(string: "secret-\(parts[0])-\(parts[1])"), "\(account)")
        }
        let shared = try store.find(
            ItemQuery(.genericPassword, attributes: [.service: .string("shared")]),
            limit: .all,
            withData: true
        )
        #expect(shared.count == 1, "-U from many processes keeps one item")
        #expect(shared.first?.data?.utf8String?.hasPrefix("from-") == true)

        let verified = try CLIRunner.latchkey(["debug", "verify"], environment: environment)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }

    @Test func concurrentGitStoresAndReadsDoNotInterfere() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LK"] = BuiltExecutable.latchkey
        let results = try runConcurrently(3, environment: environment) { worker in
            """
            set -e
            i=0
            while [ $i -lt 10 ]; do
              printf 'protocol=https\\nhost=host\(worker).example\\nusername=u%s\\npassword=p\(worker)-%s\\n\\n' $i $i | "$LK" git-credential store
              out=$(printf 'protocol=https\\nhost=host\(worker).example\\nusername=u%s\\n\\n' $i | "$LK" git-credential get)
              [ "$out" = "$(printf 'username=u%s\\npassword=p\(worker)-%s' $i $i)" ] || { echo "mismatch: $out" >&2; exit 1; }
              i=$((i+1))
            done
            """
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let items = try keychain.open().find(ItemQuery(.internetPassword), limit: .all)
        #expect(items.count == 30)
    }
}

/// Results written by concurrent workers.
private final class Results: @unchecked Sendable {
    // SAFETY: `values` is only touched with `lock` held.
    private let lock = NSLock()
    private var values: [CLIRunner.Result?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: CLIRunner.Result?) {
        lock.lock()
        defer { lock.unlock() }
        values[index] = value
    }

    var all: [CLIRunner.Result?] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
