import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The docs say what the code does: `lock-keychain` locks (it is not a no-op), the agent's lookup speed is quoted
/// alike in README.md and docs/agent.md as docs/benchmarks.md measured it, docs/ cite no issue numbers, and
/// docs/core-operations.md lists every operation, the maintenance ones included.
struct CLIDocsAgreementTests {
    /// The repository's root, from this file's path (`Tests/LatchkeyCLITests/…`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    @Test func lockKeychainLocksTheAgentsKeychainAndRefusesAMissingOneAsDocsCliSays() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(try agent.latchkey(["add-generic-password", "-s", "s", "-a", "a", "-w", "p"]).status == 0)
        let locked = try agent.latchkey(["lock-keychain"])
        #expect(locked.status == 0, "\(locked.stderr)")
        let found = try agent.latchkey(["find-generic-password", "-s", "s", "-a", "a", "-w"])
        #expect(found.status == 1 && found.stderr.contains("-25308"), "locked for every client: \(found.stderr)")
        let missing = try agent.latchkey(["lock-keychain", agent.keychain.directory + "/none.keychain-db"])
        #expect(missing.status == 1 && missing.stderr.contains("-25294"), "\(missing.stderr)")
        let help = try agent.latchkey(["lock-keychain", "--help"])
        #expect(!help.stdout.contains("no-op"), "\(help.stdout)")
        let cli = try Self.read("docs/cli.md")
        #expect(!cli.contains("no-op"), "docs/cli.md calls a command a no-op")
    }

    @Test func theAgentsLookupSpeedIsQuotedAlikeAndAsMeasured() throws {
        let ratio = "2.8–6.0×"
        #expect(try Self.read("README.md").contains(ratio + " faster than `secret-tool`"))
        #expect(try Self.read("docs/agent.md").contains(ratio + " faster than `secret-tool"))
        #expect(try Self.read("docs/benchmarks.md").contains("**3.1× / 2.8× / 6.0×**"))
        #expect(!(try Self.read("README.md")).contains("0.8–2.4×"))
    }

    @Test func docsCiteNoIssueNumbers() throws {
        let docs = Self.root + "/docs"
        let pattern = try NSRegularExpression(pattern: "[Ii]ssues? #?[0-9]+")
        for name in try FileManager.default.contentsOfDirectory(atPath: docs) where name.hasSuffix(".md") {
            let text = try String(contentsOfFile: docs + "/" + name, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            let cited = pattern.matches(in: text, range: range).compactMap {
                Range($0.range, in: text).map { text[$0] }
            }
            #expect(cited.isEmpty, "docs/\(name) cites \(cited)")
        }
    }

    @Test func coreOperationsListsEveryOperationAndOutcome() throws {
        let doc = try Self.read("docs/core-operations.md")
        for (source, prefix) in [
            ("Sources/Latchkey/Operations/KeychainOperation.swift", "        case "),
            ("Sources/Latchkey/Operations/KeychainOutcome.swift", "        case "),
        ] {
            // The cases of the type's `Storage` enum, nested in the file's first type: its lines up to the first
            // closing brace at column 4.
            let lines = try Self.read(source).split(separator: "\n").prefix { $0 != "    }" }
            let names = lines.compactMap { line -> String? in
                guard line.hasPrefix(prefix) || line.hasPrefix("        indirect case ") else { return nil }
                let rest = line.drop { $0 == " " }.replacingOccurrences(of: "indirect ", with: "").dropFirst(5)
                return String(rest.prefix { $0.isLetter })
            }
            #expect(names.count > 5, "\(source): \(names)")
            for name in names { #expect(doc.contains("`\(name)"), "docs/core-operations.md leaves out \(name)") }
        }
    }
}
