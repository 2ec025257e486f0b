import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The per-user agent (issue 15), measured from this process against a real `latchkey agent` process
/// serving the filled keychain (`BenchmarkAgent`), beside a raw Unix-socket round trip of the same size:
///
/// - `floor-socket-roundtrip`: one request frame of the size of an agent find sent over a connected Unix
///   stream socket to an echo thread of this process, which answers with a frame of the size of the
///   agent's answer (`SocketEcho`), with the client's own framing code (`AgentFrame`);
/// - `agent-wire-codec`: in process, what the protocol adds to a find besides the socket: encoding the
///   find (`KeychainWireCodec`), decoding it, encoding its answer and decoding that;
/// - `agent-find-primary-key`: `findOne` by service + account with the secret through `AgentClient`, each
///   right after one timed socket round trip (`floor-socket-roundtrip-agent-find`, its floor); read it
///   beside `find-primary-key`, the same find in process, earlier in the same run;
/// - `agent-concurrency`: 8 client processes (`latchkey debug agent-load`), released together, each doing
///   1 000 lookups and 200 durable adds through the agent: `agent-concurrency-lookup` and `-write` (every
///   client's operations), `agent-concurrency-ops-per-second` (all operations over the wall time from the
///   first client's start to the last one's end) and `agent-concurrency-lost` (written items that cannot
///   be read back with their secret afterwards, expected 0);
/// - `agent-find-access-log-on` and `-off`: the finds of `agent-find-primary-key` through agents with and
///   without (`--access-log off`) the access log, alternating over three rounds after the load above, and
///   `agent-access-log-cost`, the difference of their medians in µs;
/// - `agent-find-under-load` and the agent's memory under a load of idle connections and stalled 16 MiB
///   frames (`AgentFairnessBenchmarks`).
///
/// When the agent cannot be started (no `latchkey` beside this executable, no socket), the suite says why
/// on standard error and measures nothing.
enum AgentBenchmarks: BenchmarkSuite {
    static let name = "agent"
    static let warmUp = 200
    static let loadClients = 8
    static let loadLookups = 1000
    static let loadWrites = 200

    static let ops =
        [
            "floor-socket-roundtrip", "agent-wire-codec", "agent-find-primary-key", "agent-concurrency",
            "agent-find-access-log",
        ] + AgentFairnessBenchmarks.ops

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        guard ops.contains(where: context.options.includes) else { return }
        let picks = (0..<context.options.samples).map { _ in
            keychain.accounts[context.index(below: keychain.accounts.count)]
        }
        let query = FilledKeychain.query(account: picks[0])
        let request = try KeychainWireCodec.encode(.find(FindRequest(query, limit: .one, withData: true)))
        let answer = try KeychainWireCodec.encode(
            .success(keychain.store.perform(.find(FindRequest(query, withData: true))))
        )
        let echo = try SocketEcho(requestLength: request.count, answerLength: answer.count)
        defer { echo.stop() }
        if context.options.includes("floor-socket-roundtrip") {
            context.progress("\(name): floor-socket-roundtrip (\(request.count) + \(answer.count) bytes)")
            for _ in 0..<warmUp { try echo.roundTrip() }
            context.report.add(
                "floor-socket-roundtrip",
                items: keychain.items,
                try context.measure(context.options.samples) { _ in try echo.roundTrip() }
            )
        }
        if context.options.includes("agent-wire-codec") {
            context.progress("\(name): agent-wire-codec")
            let outcome = try keychain.store.perform(.find(FindRequest(query, withData: true)))
            context.report.add(
                "agent-wire-codec",
                items: keychain.items,
                try context.measure(context.options.samples) { _ in
                    let operation = try KeychainWireCodec.decodeOperation(
                        KeychainWireCodec.encode(.find(FindRequest(query, withData: true)))
                    )
                    _ = try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome)))
                    return operation
                }
            )
        }
        guard ops.dropFirst(2).contains(where: context.options.includes) else { return }
        let agent: BenchmarkAgent
        do {
            agent = try BenchmarkAgent(keychain: keychain, directory: context.directory)
        } catch {
            context.progress("\(name): skipped, the agent cannot be started: \(error)")
            return
        }
        defer { agent.stop() }
        context.progress("\(name): agent pid \(agent.pid) on \(agent.socketPath)")
        if context.options.includes("agent-find-primary-key") {
            context.progress("\(name): agent-find-primary-key")
            let measured = try find(agent.client, picks, echo, &context)
            context.report.add("floor-socket-roundtrip-agent-find", items: keychain.items, measured.floor)
            context.report.add("agent-find-primary-key", items: keychain.items, measured.operation)
        }
        if context.options.includes("agent-concurrency") {
            context.progress(
                "\(name): agent-concurrency (\(loadClients) processes x \(loadLookups) lookups + \(loadWrites) writes)"
            )
            try concurrency(agent, keychain, &context)
        }
        if context.options.includes("agent-find-under-load") {
            context.progress("\(name): agent-find-under-load")
            try AgentFairnessBenchmarks.run(agent, keychain, picks, &context)
        }
        if context.options.includes("agent-find-access-log") {
            try accessLogCost(agent, keychain, picks, echo, &context)
        }
    }

    /// Rounds of `accessLogCost`: agents with and without the log alternate, so that a change of the
    /// machine's load during the run weighs on both alike.
    static let accessLogRounds = 3

    /// The access log's cost on a find: the finds of `agent-find-primary-key` through an agent keeping its
    /// access log and through one started with `--access-log off`, alternating over `accessLogRounds` rounds
    /// (the first through `agent`, which this stops), each paired with socket round trips; reports both, pooled,
    /// and the difference of their medians (`agent-access-log-cost`, µs).
    private static func accessLogCost(
        _ agent: BenchmarkAgent,
        _ keychain: FilledKeychain,
        _ picks: [String],
        _ echo: SocketEcho,
        _ context: inout BenchmarkContext
    ) throws {
        var samples: [Bool: (floor: [UInt64], operation: [UInt64])] = [true: ([], []), false: ([], [])]
        for round in 0..<accessLogRounds {
            for logging in [true, false] {
                context.progress("\(name): agent-find-access-log-\(logging ? "on" : "off") round \(round + 1)")
                let served: BenchmarkAgent
                do {
                    served =
                        round == 0 && logging
                        ? agent
                        : try BenchmarkAgent(
                            keychain: keychain,
                            directory: context.directory,
                            arguments: ["--access-log", logging ? "on" : "off"],
                            logName: "agent-access-log-\(logging ? "on" : "off").log"
                        )
                } catch {
                    context.progress("\(name): agent-find-access-log skipped: \(error)")
                    return
                }
                defer { served.stop() }
                let measured = try find(served.client, picks, echo, &context)
                samples[logging]?.floor += measured.floor.sorted
                samples[logging]?.operation += measured.operation.sorted
            }
        }
        var medians: [Bool: Double] = [:]
        for logging in [true, false] {
            guard let pooled = samples[logging] else { continue }
            let suffix = logging ? "on" : "off"
            let operation = Measurement(nanoseconds: pooled.operation)
            context.report.add(
                "floor-socket-roundtrip-agent-find-log-\(suffix)",
                items: keychain.items,
                Measurement(nanoseconds: pooled.floor)
            )
            context.report.add("agent-find-access-log-\(suffix)", items: keychain.items, operation)
            medians[logging] = operation.medianMicroseconds
        }
        if let on = medians[true], let off = medians[false] {
            context.report.add("agent-access-log-cost", items: keychain.items, value: on - off, unit: "us")
        }
    }

    /// `findOne` with the secret through the agent, each right after one socket round trip; results are
    /// checked after the clock stopped.
    private static func find(
        _ client: AgentClient,
        _ picks: [String],
        _ echo: SocketEcho,
        _ context: inout BenchmarkContext
    ) throws -> (floor: Measurement, operation: Measurement) {
        for run in 0..<min(warmUp, picks.count) {
            _ = try client.findOne(FilledKeychain.query(account: picks[run]), withData: true)
        }
        var found: [FoundItem] = []
        found.reserveCapacity(picks.count)
        let measured = try context.measurePaired(picks.count, floor: { _ in try echo.roundTrip() }) { run in
            found.append(try client.findOne(FilledKeychain.query(account: picks[run]), withData: true))
        }
        for (run, item) in found.enumerated() {
            guard item.attributes[.account] == .string(picks[run]), item.data?.count == 32 else {
                throw BenchmarkFailure("an agent find returned another item or no secret")
            }
        }
        return measured
    }

    /// Runs the load clients, releases them together, collects their timings and reads back every write.
    private static func concurrency(
        _ agent: BenchmarkAgent,
        _ keychain: FilledKeychain,
        _ context: inout BenchmarkContext
    ) throws {
        let accountsFile = context.directory.path + "/agent-load-accounts"
        try Data(keychain.accounts.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: accountsFile))
        let clients = try (0..<loadClients).map { index in
            try agent.spawn(
                [
                    "debug", "agent-load", "--client", "\(index)", "--lookups", "\(loadLookups)",
                    "--writes", "\(loadWrites)", "--accounts-file", accountsFile,
                ],
                log: "agent-load-\(index).log"
            )
        }
        defer { for client in clients where client.process.isRunning { client.process.terminate() } }
        for client in clients {
            guard try client.readLine() == "ready" else { throw BenchmarkFailure("an agent-load client did not start") }
        }
        for client in clients { client.input.write(Data("go\n".utf8)) }
        var lookups: [UInt64] = []
        var writes: [UInt64] = []
        var first = UInt64.max
        var last = UInt64.min
        for client in clients {
            let output = String(decoding: client.output.readDataToEndOfFile(), as: UTF8.self)
            client.process.waitUntilExit()
            guard client.process.terminationStatus == 0 else {
                throw BenchmarkFailure("an agent-load client exited with \(client.process.terminationStatus)")
            }
            for line in output.split(separator: "\n") {
                let fields = line.split(separator: " ")
                let numbers = fields.dropFirst().compactMap { UInt64($0) }
                switch fields.first {
                case "span": first = min(first, numbers[0]); last = max(last, numbers[1])
                case "lookups": lookups += numbers
                case "writes": writes += numbers
                default: break
                }
            }
        }
        guard lookups.count == loadClients * loadLookups, writes.count == loadClients * loadWrites, last > first else {
            throw BenchmarkFailure(
                "the agent-load clients reported \(lookups.count) lookups and \(writes.count) writes"
            )
        }
        var lost = 0
        for index in 0..<loadClients {
            for write in 0..<loadWrites {
                let account = AgentLoadNames.account(client: index, write: write)
                let item = try? agent.client.findOne(
                    ItemQuery(
                        .genericPassword,
                        attributes: [.service: .string(AgentLoadNames.service), .account: .string(account)]
                    ),
                    withData: true
                )
                if item?.data != SecretData(string: AgentLoadNames.secret(account)) { lost += 1 }
            }
        }
        let seconds = Double(last - first) / 1e9
        context.report.add("agent-concurrency-lookup", items: keychain.items, Measurement(nanoseconds: lookups))
        context.report.add("agent-concurrency-write", items: keychain.items, Measurement(nanoseconds: writes))
        context.report.add(
            "agent-concurrency-ops-per-second",
            items: keychain.items,
            value: Double(lookups.count + writes.count) / seconds,
            unit: "ops/s"
        )
        context.report.add("agent-concurrency-lost", items: keychain.items, value: Double(lost), unit: "items")
    }
}

/// The names `latchkey debug agent-load` writes under (kept in step with `Debug.AgentLoad`).
enum AgentLoadNames {
    static let service = "agent-load"
    static func account(client: Int, write: Int) -> String { "c\(client)-\(write)" }
    static func secret(_ account: String) -> String { "secret-\(account)" }
}

/// The raw floor of an agent request: a connected Unix stream socket pair, with an echo thread on one end
/// that reads each request frame and answers with a frame of `answerLength` bytes.
final class SocketEcho: @unchecked Sendable {
    // SAFETY: the descriptors are set once in `init`; the client end is used by the benchmark's thread
    // only, the server end by the echo thread only.
    private let client: Int32
    private let server: Int32
    private let request: Data
    private let thread: Thread

    init(requestLength: Int, answerLength: Int) throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw BenchmarkFailure("socketpair: \(String(cString: strerror(errno)))")
        }
        client = pair[0]
        server = pair[1]
        request = Data(repeating: 0x5A, count: requestLength)
        let answer = Data(repeating: 0xA5, count: answerLength)
        let descriptor = server
        thread = Thread {
            while (try? AgentFrame.read(from: descriptor)) != nil {
                if (try? AgentFrame.write(answer, to: descriptor)) == nil { break }
            }
            close(descriptor)
        }
        thread.start()
    }

    /// One request and its answer.
    func roundTrip() throws {
        do {
            try AgentFrame.write(request, to: client)
            _ = try AgentFrame.read(from: client)
        } catch {
            throw BenchmarkFailure("socket floor: \(error)")
        }
    }

    /// Closes the client end, which ends the echo thread.
    func stop() {
        close(client)
    }
}
