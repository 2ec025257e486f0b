import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// Fairness under load (issue 27), against the agent of `AgentBenchmarks`:
///
/// - `agent-find-idle`: `findOne` by service + account with the secret through the agent's existing client,
///   while nothing else is connected (the floor of the next one);
/// - `agent-find-under-load`: the same finds while this process holds `idleConnections` connections that sent
///   their hello and nothing more, and `stalledFrames` connections that sent their hello, then the length
///   prefix of a 16 MiB frame and `stalledBytes` of it, and stopped (`agent-load-connections-held` says how
///   many of them the agent serves: the agent is started with a per-program limit above them, as if many
///   programs held them together);
/// - `agent-rss-idle`, `agent-rss-load`, `agent-rss-after-load`: the agent's resident memory (`VmRSS` of
///   `/proc/<pid>/status`) before, under that load, and once every load connection ended (this process
///   ends its side, waits for the agent to close each one, then for the agent's threads to exit), with
///   `-ratio` values over idle.
enum AgentFairnessBenchmarks {
    static let idleConnections = 1000
    static let stalledFrames = 40
    static let stalledBytes = 3 << 20
    /// The per-program connection limit the benchmark agent runs with (`latchkey agent
    /// --connections-per-client`), above everything this process opens.
    static let connectionsPerClient = 4096

    static let ops = ["agent-find-under-load"]

    /// Raises this process's soft descriptor limit to its hard limit, so that it can hold the load's sockets
    /// (the agent, started after, inherits it).
    static func raiseDescriptorLimit() {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    static func run(
        _ agent: BenchmarkAgent,
        _ keychain: FilledKeychain,
        _ picks: [String],
        _ context: inout BenchmarkContext
    ) throws {
        let count = min(picks.count, 2000)
        for run in 0..<min(AgentBenchmarks.warmUp, count) {
            _ = try agent.client.findOne(FilledKeychain.query(account: picks[run]), withData: true)
        }
        let idleRSS = try residentMiB(agent.pid)
        let idleThreads = try status(agent.pid, "Threads:")
        let idleAnonymous = Double(try status(agent.pid, "RssAnon:")) / 1024
        context.report.add("agent-find-idle", items: keychain.items, try finds(agent.client, picks, count, &context))

        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var held = 0
        context.progress("agent: opening \(idleConnections) idle connections")
        for _ in 0..<idleConnections {
            guard let descriptor = try helloConnection(agent.socketPath) else { continue }
            descriptors.append(descriptor)
            held += 1
        }
        context.progress("agent: \(stalledFrames) stalled frames of 16 MiB (\(stalledBytes >> 20) MiB sent each)")
        let partial = [UInt8](repeating: 0x5A, count: stalledBytes)
        for _ in 0..<stalledFrames {
            guard let descriptor = try helloConnection(agent.socketPath) else { continue }
            descriptors.append(descriptor)
            held += 1
            do {
                try AgentFrame.sendAll([0x01, 0x00, 0x00, 0x00], to: descriptor)
                try AgentFrame.sendAll(partial, to: descriptor)
            } catch {
                throw BenchmarkFailure("a stalled frame could not be sent: \(error)")
            }
        }
        let loadRSS = try residentMiB(agent.pid)
        context.report.add(
            "agent-find-under-load",
            items: keychain.items,
            try finds(agent.client, picks, count, &context)
        )

        for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_WR)) }
        for descriptor in descriptors where !waitForEnd(of: descriptor, within: 60) {
            throw BenchmarkFailure("the agent did not end a load connection within 60 s")
        }
        // The agent closes a connection before its thread exits: wait for the threads (their stacks are
        // resident until then), polling, at most 30 s.
        let settled = Date(timeIntervalSinceNow: 30)
        while try status(agent.pid, "Threads:") > idleThreads, Date() < settled { usleep(10_000) }
        let afterRSS = try residentMiB(agent.pid)
        let afterAnonymous = Double(try status(agent.pid, "RssAnon:")) / 1024
        context.report.add(
            "agent-load-connections-held",
            items: keychain.items,
            value: Double(held),
            unit: "connections"
        )
        context.report.add("agent-rss-idle", items: keychain.items, value: idleRSS, unit: "MiB")
        context.report.add("agent-rss-load", items: keychain.items, value: loadRSS, unit: "MiB")
        context.report.add("agent-rss-load-ratio", items: keychain.items, value: loadRSS / idleRSS, unit: "x idle")
        context.report.add("agent-rss-after-load", items: keychain.items, value: afterRSS, unit: "MiB")
        context.report.add(
            "agent-rss-after-load-ratio",
            items: keychain.items,
            value: afterRSS / idleRSS,
            unit: "x idle"
        )
        context.report.add("agent-rss-anon-idle", items: keychain.items, value: idleAnonymous, unit: "MiB")
        context.report.add("agent-rss-anon-after-load", items: keychain.items, value: afterAnonymous, unit: "MiB")
    }

    /// `count` finds with the secret through `client`, checked after the clock stopped.
    private static func finds(
        _ client: AgentClient,
        _ picks: [String],
        _ count: Int,
        _ context: inout BenchmarkContext
    ) throws -> Measurement {
        try context.measure(count) { run in
            try client.findOne(FilledKeychain.query(account: picks[run]), withData: true)
        } check: { run, item in
            guard item.attributes[.account] == .string(picks[run]), item.data?.count == 32 else {
                throw BenchmarkFailure("an agent find returned another item or no secret")
            }
        }
    }

    /// A new connection that sent its hello and got its welcome, or `nil` when the agent refused it.
    private static func helloConnection(_ socketPath: String) throws -> Int32? {
        let descriptor: Int32
        do {
            descriptor = try UnixSocket.connect(to: socketPath)
        } catch {
            throw BenchmarkFailure("cannot connect to the agent: \(error)")
        }
        do {
            try AgentFrame.write(AgentHandshake.encode(AgentHandshake.Hello(accessGroups: nil)), to: descriptor)
            _ = try AgentHandshake.decode(
                AgentHandshake.Reply.self,
                from: AgentFrame.read(from: descriptor, within: 30)
            ).result()
            return descriptor
        } catch {
            close(descriptor)
            return nil
        }
    }

    /// Waits until the agent ends the connection (a read returns 0); `false` when `seconds` pass first.
    private static func waitForEnd(of descriptor: Int32, within seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&watched, 1, Int32(min(remaining * 1000, 60_000)) + 1) > 0 else { continue }
            let received = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received == 0 || (received < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
    }

    /// The resident memory of process `pid` in MiB (`VmRSS`).
    private static func residentMiB(_ pid: Int32) throws -> Double {
        Double(try status(pid, "VmRSS:")) / 1024
    }

    /// The number after `field` in `/proc/<pid>/status` (`VmRSS:` in KiB, `Threads:`).
    private static func status(_ pid: Int32, _ field: String) throws -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
        else { throw BenchmarkFailure("cannot read \(field) of the agent") }
        return value
    }
}
