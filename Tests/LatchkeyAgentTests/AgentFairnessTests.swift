import Foundation
import GRDB
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Fairness under load (issue 27), against a real agent process, as an attacker running as the same user
/// would try it: a program that holds more connections than its share does not block another program; a
/// connection without a hello is closed after the hello limit; a client's group question is cancelled when it
/// disconnects, so the next client's question is shown at once; stalled 16 MiB frames leave no memory behind;
/// maintenance reports through the agent cover only the caller's groups.
///
/// Every wait is on an event (a descriptor's end, a pinentry log line) with a deadline, never a sleep.
struct AgentFairnessTests {
    /// A raw connection from this test process.
    static func connect(_ agent: AgentHarness) throws -> Int32 {
        try UnixSocket.connect(to: agent.socketPath)
    }

    /// Sends a hello (binary form, as Latchkey's clients do).
    static func sendHello(_ descriptor: Int32, accessGroups: [String]? = nil) throws {
        try AgentFrame.write(AgentHandshake.encode(AgentHandshake.Hello(accessGroups: accessGroups)), to: descriptor)
    }

    /// The agent's answer to a hello: its welcome, or the refusal it sent.
    static func welcome(_ descriptor: Int32, within seconds: TimeInterval) throws -> AgentWelcome {
        try AgentHandshake.decode(AgentHandshake.Reply.self, from: AgentFrame.read(from: descriptor, within: seconds))
            .result()
    }

    /// Waits until the agent ends the connection (a read returns 0), reading and dropping what it sends
    /// before; returns `false` when `seconds` pass first.
    static func waitForEnd(of descriptor: Int32, within seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            guard ready > 0 else { continue }
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
    }

    /// The resident memory of process `pid` in bytes (`VmRSS` of `/proc/<pid>/status`).
    static func residentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return kilobytes * 1024
    }

    @Test func aProgramHoldingMoreThanItsShareOfConnectionsDoesNotBlockAnotherProgram() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        let added = try agent.latchkey(["add-generic-password", "-s", "fair", "-a", "a", "-w", "still-served"])
        #expect(added.status == 0, "\(added.stderr)")

        // More connections than the old global limit (256), all from this program, each with a hello.
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var welcomed = 0
        var refused = 0
        for _ in 0..<300 {
            let descriptor = try Self.connect(agent)
            descriptors.append(descriptor)
            do {
                try Self.sendHello(descriptor)
                _ = try Self.welcome(descriptor, within: 30)
                welcomed += 1
            } catch AgentFrame.Failure.closed {
                refused += 1
            } catch AgentFrame.Failure.system(EPIPE) {
                refused += 1
            } catch AgentFrame.Failure.system(ECONNRESET) {
                refused += 1
            }
        }
        let limit = AgentConfiguration(keychainPath: "", socketPath: "", policyPath: "").connectionsPerClient
        #expect(welcomed == limit, "this program is served up to its share")
        #expect(refused == 300 - limit, "and its other connections are closed at once")

        let found = try agent.latchkey(["find-generic-password", "-s", "fair", "-w"])
        #expect(found.status == 0, "another program is still served: \(found.stderr)")
        #expect(found.stdout == "still-served\n")
    }

    @Test func aConnectionWithoutItsHelloIsClosedAfterTheHelloLimit() throws {
        let agent = try AgentHarness(arguments: ["--hello-timeout", "0.3"])
        let silent = try Self.connect(agent)
        defer { close(silent) }
        // A hello that starts and never ends: the limit is for the whole hello, not for each read.
        let trickling = try Self.connect(agent)
        defer { close(trickling) }
        try AgentFrame.sendAll([0, 0, 0, 40, UInt8(ascii: "{")], to: trickling)

        #expect(Self.waitForEnd(of: silent, within: 5), "the agent closed the connection that sent nothing")
        #expect(Self.waitForEnd(of: trickling, within: 5), "and the one whose hello never ended")
        let served = try agent.latchkey(["show-keychain-info"])
        #expect(served.status == 0, "a client that sends its hello at once is served: \(served.stderr)")
    }

    @Test func aGroupQuestionIsCancelledWhenItsClientDisconnects() throws {
        let scratch = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: scratch.directory)
        // A's question is never answered; B's is cancelled (no answer left: A's pinentry may be killed while
        // it rewrites the answers file, so B's answer cannot be another one reliably).
        pinentry.answer(["HANG"])
        // The default prompt timeout, 60 s: an agent that does not cancel A's question keeps B's waiting.
        let agent = try AgentHarness(arguments: ["--pinentry", pinentry.path])
        let group = "com.example.fairness"

        let clientA = try Self.connect(agent)
        try Self.sendHello(clientA, accessGroups: [group])
        try #require(pinentry.waitForCommands(named: "CONFIRM", count: 1, timeout: 30), "A's question is shown")
        close(clientA)

        let clientB = try Self.connect(agent)
        defer { close(clientB) }
        try Self.sendHello(clientB, accessGroups: [group])
        let shown = pinentry.waitForCommands(named: "CONFIRM", count: 2, timeout: 10)
        #expect(shown, "B's question is shown at once: A's was cancelled when A left")
        guard shown else { return }
        let refusal = #expect(throws: KeychainError.self, "B's question was answered (Deny), and B refused at once") {
            try Self.welcome(clientB, within: 10)
        }
        #expect(refusal?.code == .missingEntitlement)
    }

    @Test func stalledBigFramesLeaveNoMemoryBehind() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(try agent.latchkey(["show-keychain-info"]).status == 0)
        let idle = try Self.residentBytes(of: agent.agent.pid)
        let allowed = idle + max(idle / 10, 4 << 20)
        let sent = [UInt8](repeating: 0x5A, count: 3 << 20)
        // Two rounds: glibc raises its mmap threshold after the first large block is freed, so that later
        // ones stay in its arenas unless the agent stops it.
        for round in 1...2 {
            var descriptors: [Int32] = []
            defer { for descriptor in descriptors { close(descriptor) } }
            for _ in 0..<40 {
                let descriptor = try Self.connect(agent)
                descriptors.append(descriptor)
                try Self.sendHello(descriptor)
                _ = try Self.welcome(descriptor, within: 30)
                // A frame announced at 16 MiB, of which 3 MiB arrive (a blocking send: the agent has read
                // all but a socket buffer of it when this returns); then the client stalls.
                try AgentFrame.sendAll([0x01, 0x00, 0x00, 0x00], to: descriptor)
                try AgentFrame.sendAll(sent, to: descriptor)
            }
            let loaded = try Self.residentBytes(of: agent.agent.pid)
            // The clients leave (end of stream): each connection ends in the middle of its frame, and the
            // agent closes its end once it has freed the frame's buffer.
            for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_WR)) }
            for descriptor in descriptors {
                #expect(Self.waitForEnd(of: descriptor, within: 30), "round \(round): the agent ended the connection")
            }
            let after = try Self.residentBytes(of: agent.agent.pid)
            #expect(
                after <= allowed,
                "round \(round): idle \(idle >> 10) KiB, loaded \(loaded >> 10) KiB, after \(after >> 10) KiB"
            )
        }
        #expect(try agent.latchkey(["show-keychain-info"]).status == 0, "the agent still serves")
    }

    @Test func maintenanceReportsThroughTheAgentCoverOnlyTheCallersGroups() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        for account in ["one", "two", "three"] {
            let added = try agent.latchkey(["add-generic-password", "-s", "owned", "-a", account, "-w", "x"])
            #expect(added.status == 0, "\(added.stderr)")
        }
        // Damage one of them, outside Latchkey.
        let damaged = try DatabaseQueue(path: agent.keychain.path).write { db in
            let persistref = try #require(try Data.fetchOne(db, sql: "SELECT persistref FROM genp LIMIT 1"))
            var blob = try #require(
                try Data.fetchOne(db, sql: "SELECT attrs FROM genp WHERE persistref = ?", arguments: [persistref])
            )
            blob[blob.startIndex + blob.count / 2] ^= 0x20
            try db.execute(sql: "UPDATE genp SET attrs = ? WHERE persistref = ?", arguments: [blob, persistref])
            return persistref
        }

        // In process, without a scope, the whole report.
        let store = try KeychainStore.open(
            path: agent.keychain.path,
            credentials: [.passphrase(SecretData(string: AgentHarness.passphrase))],
            options: agent.keychain.options(accessGroups: ["unrelated"])
        )
        let whole = try store.verifyIntegrity()
        #expect(whole.verified >= 2)
        #expect(whole.undecryptable.map { $0.suffix(16) } == [damaged])
        try store.close()

        // This test process owns no item: through the agent it learns nothing about the others.
        let descriptor = try Self.connect(agent)
        defer { close(descriptor) }
        try Self.sendHello(descriptor)
        _ = try Self.welcome(descriptor, within: 30)
        try AgentFrame.write(KeychainWireCodec.encode(.verifyIntegrity(acceptingCurrentState: false)), to: descriptor)
        guard
            case .integrity(let report) = try KeychainWireCodec.decodeOutcome(AgentFrame.read(from: descriptor))
                .storage
        else {
            Issue.record("verifyIntegrity was not answered with a report")
            return
        }
        #expect(report.verified == 0)
        #expect(report.locked == 0)
        #expect(report.undecryptable.isEmpty)
        #expect(report.mismatchedTags ?? [] == [])
        #expect(report.ledger?.rows ?? 0 == 0)
        #expect(report.ledger?.mismatched ?? [] == [])

        for includingSecrets in [false, true] {
            try AgentFrame.write(
                KeychainWireCodec.encode(.damagedItems(.genericPassword, includingSecrets: includingSecrets)),
                to: descriptor
            )
            let outcome = try KeychainWireCodec.decodeOutcome(AgentFrame.read(from: descriptor))
            #expect(outcome == .damagedItems([]), "no damaged item of another group")
        }
    }
}
