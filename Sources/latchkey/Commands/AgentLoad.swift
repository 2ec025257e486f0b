import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

extension Debug {
    /// One client of `latchkey-bench`'s `agent-concurrency`: connects to the agent (`LATCHKEY_AGENT`
    /// semantics), prints `ready`, waits for a line on standard input, then does `--lookups` finds with the
    /// secret of random accounts of `--accounts-file` (service `bench`) and `--writes` durable adds (service
    /// `agent-load`, account `c<client>-<n>`, secret `secret-c<client>-<n>`), spread evenly among the
    /// lookups.
    ///
    /// It prints `span <start> <end>` (CLOCK_MONOTONIC nanoseconds of the first and last operation's ends),
    /// `lookups <ns> …` and `writes <ns> …` (each operation's duration), and fails on the first error.
    struct AgentLoad: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "agent-load")
        @Option var client: Int = 0
        @Option var lookups: Int = 1000
        @Option var writes: Int = 200
        @Option(name: .customLong("accounts-file")) var accountsFile: String
        @Option var service: String = "bench"

        func run() throws {
            try runReportingErrors {
                guard let agent = try AgentClient.discover() else {
                    throw KeychainError(.notAvailable, "No agent answers.")
                }
                let accounts = try String(contentsOfFile: accountsFile, encoding: .utf8).split(separator: "\n")
                guard !accounts.isEmpty else { throw KeychainError(.param, "The accounts file is empty.") }
                FileHandle.standardOutput.write(Data("ready\n".utf8))
                _ = Swift.readLine()
                let every = writes > 0 ? max(lookups / writes, 1) : Int.max
                var lookupTimes: [UInt64] = []
                var writeTimes: [UInt64] = []
                lookupTimes.reserveCapacity(lookups)
                writeTimes.reserveCapacity(writes)
                let start = Self.now()
                for index in 0..<(lookups + writes) {
                    let isWrite =
                        writeTimes.count < writes && (index + 1) % (every + 1) == 0 || lookupTimes.count == lookups
                    let begin = Self.now()
                    if isWrite {
                        let account = "c\(client)-\(writeTimes.count)"
                        _ = try agent.add(
                            .genericPassword,
                            attributes: [.service: .string("agent-load"), .account: .string(account)],
                            data: SecretData(string: "secret-\(account)")
                        )
                        writeTimes.append(Self.now() - begin)
                    } else {
                        let account = String(accounts[Int.random(in: 0..<accounts.count)])
                        let item = try agent.findOne(
                            ItemQuery(
                                .genericPassword,
                                attributes: [.service: .string(service), .account: .string(account)]
                            ),
                            withData: true
                        )
                        lookupTimes.append(Self.now() - begin)
                        guard item.attributes[.account] == .string(account), item.data != nil else {
                            throw KeychainError(.decode, "A lookup returned another item.")
                        }
                    }
                }
                let end = Self.now()
                var out = "span \(start) \(end)\n"
                out += "lookups " + lookupTimes.map(String.init).joined(separator: " ") + "\n"
                out += "writes " + writeTimes.map(String.init).joined(separator: " ") + "\n"
                FileHandle.standardOutput.write(Data(out.utf8))
            }
        }

        private static func now() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }
    }
}
