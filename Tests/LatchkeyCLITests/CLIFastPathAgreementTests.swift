import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The CLI's fast path (`find-*-password` and `add-*-password` parsed without ArgumentParser) and the full
/// ArgumentParser commands give the same answer: for every option of those four commands, each command line is run
/// by the built `latchkey` once as it comes (`LATCHKEY_FAST_PATH=only`: the fast path, or a refusal when it does
/// not parse the line, which is then run as it comes) and once through the full parser (`LATCHKEY_FAST_PATH=off`),
/// on the same keychain state, and both must print the same stdout and stderr, exit with the same status and, for
/// an add, leave the same items. Good values, a missing value, a value of the wrong type or range, an empty value,
/// `-`, a repeated option, unknown options and a keychain given last are all covered; the plain command lines must
/// take the fast path and the refused ones must not (docs/cli.md, "Performance").
struct CLIFastPathAgreementTests {
    /// An option of one of the four commands, as this test drives it.
    struct Option: Sendable, CustomTestStringConvertible {
        /// The command (`find-generic-password`, …).
        var command: String
        /// Every spelling of the option (`--keychain`, `-k`).
        var spellings: [String]
        /// Values both parsers accept (a flag has none).
        var values: [String] = []
        /// Values of the wrong type or range, which a parser refuses.
        var refused: [String] = []
        /// Whether the fast path parses the option (else a command line with it goes to ArgumentParser).
        var fast = true
        /// Whether to try an empty value, `-` and the option given twice too (a few options of each kind: the
        /// fast path reads every value with the same code).
        var edges = false
        /// Whether the option takes a value.
        var takesValue: Bool { !values.isEmpty }

        var testDescription: String { "\(command) \(spellings.joined(separator: " "))" }
    }

    /// One command line to run both ways.
    struct Line: Sendable, CustomStringConvertible {
        /// The arguments after the command, with `@KEYCHAIN` for the test's keychain and `@MISSING` for a keychain
        /// file that does not exist.
        var arguments: [String]
        /// Whether the fast path must answer it (`true`), must leave it to ArgumentParser (`false`), or either.
        var takesFastPath: Bool?
        /// Written on standard input.
        var input: String? = nil

        var description: String { arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ") }
    }

    static let findGeneric = "find-generic-password"
    static let findInternet = "find-internet-password"
    static let addGeneric = "add-generic-password"
    static let addInternet = "add-internet-password"

    /// The item every keychain of a test holds, added by the fast path (which other tests check against the full
    /// parser): a generic and an internet password with every attribute set.
    static let seeds: [[String]] = [
        [
            addGeneric, "-s", "svc", "-a", "alice", "-l", "Label", "-j", "note", "-D", "kind", "-c", "crtr", "-C",
            "type", "-G", "gen", "-w", "pw",
        ],
        [
            addInternet, "-s", "example.com", "-a", "bob", "-r", "https", "-P", "443", "-p", "/path", "-t",
            "htmlform", "-d", "dom", "-l", "ILabel", "-j", "inote", "-D", "ikind", "-c", "icrt", "-C", "ityp", "-w",
            "ipw",
        ],
    ]

    /// What completes a command line of each command, as option and value: an option under test replaces its own
    /// entry (and those of `replaces`).
    static let base: [String: [(String, String?)]] = [
        findGeneric: [],
        findInternet: [],
        addGeneric: [("-s", "new"), ("-a", "carol"), ("-w", "pw2")],
        addInternet: [("-s", "new.example.com"), ("-a", "carol"), ("-w", "pw2")],
    ]

    /// Base entries an option stands in for: the other ways of giving the new item's password.
    static let replaces: [String: [String]] = ["--password-stdin": ["-w"], "--prompt-password": ["-w"]]

    /// Every option of the four commands (`everyOptionOfTheFastCommandsIsCovered` checks this against the built
    /// `latchkey`'s own list).
    static let options: [Option] = {
        var options: [Option] = []
        for command in [findGeneric, findInternet, addGeneric, addInternet] {
            let isAdd = command.hasPrefix("add-")
            let isGeneric = command.hasSuffix("generic-password")
            func value(_ found: String, _ new: String) -> [String] { [isAdd ? new : found] }
            func option(
                _ spellings: [String],
                _ values: [String] = [],
                refused: [String] = [],
                fast: Bool = true,
                edges: Bool = false
            ) {
                options.append(
                    Option(
                        command: command,
                        spellings: spellings,
                        values: values,
                        refused: refused,
                        fast: fast,
                        edges: edges
                    )
                )
            }
            option(["--keychain", "-k"], ["@KEYCHAIN", "@MISSING", "nosuchname"], refused: [""], edges: true)
            option(["--kdf-cost"], ["testing"], refused: ["cheap"], fast: false)
            let prefix = isGeneric ? "" : "i"
            option(["-a"], isAdd ? ["dave"] : [isGeneric ? "alice" : "bob", "nobody"], edges: true)
            option(["-l"], value(isGeneric ? "Label" : "ILabel", "New label"))
            option(["-j"], value(prefix + "note", "a comment"))
            option(["-D"], value(prefix + "kind", "a kind"))
            option(["-c"], value(isGeneric ? "crtr" : "icrt", "ncrt"))
            option(["-C"], value(isGeneric ? "type" : "ityp", "ntyp"))
            if isGeneric {
                option(["-s"], isAdd ? ["svc x"] : ["svc", "other"], edges: true)
                option(["-G"], value("gen", "bytes"))
            } else {
                option(["-s"], value("example.com", "other.example.com"))
                option(["-r"], ["https", "HTTPS", "ftp"], refused: ["nosuch"])
                option(["-P"], ["443", "+443"], refused: ["abc", "65536", "-1"])
                option(["-p"], value("/path", "/other"))
                option(["-t"], ["htmlform", "dflt"], refused: ["nosuch"])
                option(["-d"], value("dom", "other"))
            }
            if isAdd {
                option(["-w"], ["secret", "two words"], edges: true)
                option(["--password-stdin"])
                option(["--prompt-password"], fast: false)
                option(["--accessible"], ["always", "AFTER-FIRST-UNLOCK"], refused: ["nosuch"], fast: false)
                option(["-U"])
            } else {
                option(["-g"], fast: false)
                option(["-w"])
                option(["--json"], fast: false)
            }
            option(["--synchronizable"], fast: false)
            option(["--version"], fast: false)
            option(["-h", "--help"], fast: false)
        }
        return options
    }()

    /// The command lines that exercise `option`: each spelling with a good value, every other good value, a missing
    /// value, an option where the value should be, each refused value, and for `edges` an empty value, `-` and the
    /// option given twice; a flag alone, and when the fast path parses it, twice and followed by a word (read as a
    /// keychain given last).
    static func lines(_ option: Option) -> [Line] {
        let stands = Set(option.spellings + option.spellings.flatMap { replaces[$0] ?? [] })
        let rest = (base[option.command] ?? []).filter { !stands.contains($0.0) }.flatMap {
            [$0.0] + ($0.1.map { [$0] } ?? [])
        }
        let input = option.spellings == ["--password-stdin"] ? "from stdin\n" : nil
        let first = option.spellings[0]
        var lines: [Line] = []
        func line(_ arguments: [String], fast: Bool?) {
            lines.append(Line(arguments: arguments, takesFastPath: fast, input: input))
        }
        guard option.takesValue else {
            for spelling in option.spellings { line([spelling] + rest, fast: option.fast) }
            if option.fast {
                line(rest + [first, first], fast: true)
                line(rest + [first, "@MISSING"], fast: true)
            }
            return lines
        }
        let good = option.values[0]
        for spelling in option.spellings { line([spelling, good] + rest, fast: option.fast) }
        for value in option.values.dropFirst() { line([first, value] + rest, fast: option.fast) }
        line(rest + [first], fast: false)  // a missing value
        if option.fast { line([first, rest.first ?? "-w"] + rest.dropFirst(), fast: false) }  // an option as the value
        for value in option.refused { line([first, value] + rest, fast: false) }
        if option.edges {
            line([first, ""] + rest, fast: nil)
            line([first, "-"] + rest, fast: nil)
            line([first, option.values.last ?? good, first, good] + rest, fast: nil)
        }
        return lines
    }

    /// Command lines of each command beyond single options: unknown and joined options, `--`, a keychain given
    /// last, and a missing keychain with no password source.
    static let extraLines: [(String, Line)] = [findGeneric, findInternet, addGeneric, addInternet].flatMap { command in
        let rest = (base[command] ?? []).flatMap { [$0.0] + ($0.1.map { [$0] } ?? []) }
        var lines: [Line] = [
            Line(arguments: rest + ["-x"], takesFastPath: false),
            Line(arguments: rest + ["--nosuch"], takesFastPath: false),
            Line(arguments: ["-ssvc"] + rest, takesFastPath: false),
            Line(arguments: ["--keychain=@KEYCHAIN"] + rest, takesFastPath: false),
            Line(arguments: rest + ["--"], takesFastPath: false),
            Line(arguments: rest + ["@KEYCHAIN"], takesFastPath: true),
            Line(arguments: rest + ["@MISSING"], takesFastPath: true),
            Line(arguments: rest + [""], takesFastPath: false),
            Line(arguments: ["-k", "@KEYCHAIN"] + rest + ["@KEYCHAIN"], takesFastPath: false),
            Line(arguments: rest + ["@KEYCHAIN", "extra"], takesFastPath: false),
        ]
        if command.hasPrefix("add-") {
            lines += [
                Line(arguments: ["-k", "@MISSING", "-s", "x", "-a", "y"], takesFastPath: true),
                Line(arguments: ["-k", "nosuchname", "-s", "x"], takesFastPath: true),
                Line(arguments: ["-s", "x", "-a", "y"], takesFastPath: true),
                Line(arguments: ["-s", "x", "-w", "a", "--password-stdin"], takesFastPath: false, input: "b\n"),
                Line(arguments: ["-s", "x", "-w"], takesFastPath: false),
            ]
            let duplicate = command == addGeneric ? ["-s", "svc", "-a", "alice"] : ["-s", "example.com", "-a", "bob"]
            lines.append(Line(arguments: duplicate + ["-w", "again"], takesFastPath: true))
            lines.append(Line(arguments: duplicate + ["-w", "again", "-U"], takesFastPath: true))
        }
        return lines.map { (command, $0) }
    }

    // MARK: Running a line both ways

    /// What one run showed: its output, its status and, after an add that succeeded, the keychain's items.
    struct Observation: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var items: String?

        var description: String {
            "status \(status)\nstdout: \(stdout)\nstderr: \(stderr)" + (items.map { "\nitems: \($0)" } ?? "")
        }
    }

    /// A keychain holding the seeds, with the environment a child `latchkey` uses it with, and a copy of its files
    /// to put back after an add.
    final class Fixture {
        let keychain = TemporaryKeychain()
        let environment: [String: String]
        /// The keychain's files (`""`, `-wal`, `-shm`) and where their copies are.
        let files: [(live: String, copy: String)]

        init() throws {
            var environment = CLIRunner.environment(keychain)
            environment["LATCHKEY_AGENT"] = "off"  // never an agent of the machine's session
            environment["XDG_RUNTIME_DIR"] = keychain.directory + "/run"
            environment["LATCHKEY_FAST_PATH"] = nil
            self.environment = environment
            let (path, copies) = (keychain.path, keychain.directory + "/copies")
            files = ["", "-wal", "-shm"].map { (path + $0, copies + "/keychain" + $0) }
            _ = try keychain.open()
            for seed in CLIFastPathAgreementTests.seeds {
                let added = try CLIRunner.latchkey(seed, environment: environment)
                try #require(added.status == 0, "seeding: \(added.stderr)")
            }
            // Every process has exited: the files are at rest, as after a crash at an idle moment.
            try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: false)
            for file in files where FileManager.default.fileExists(atPath: file.live) {
                try FileManager.default.copyItem(atPath: file.live, toPath: file.copy)
            }
        }

        /// Puts the keychain's files back as they were after seeding.
        func restore() throws {
            for file in files {
                if FileManager.default.fileExists(atPath: file.live) {
                    try FileManager.default.removeItem(atPath: file.live)
                }
                if FileManager.default.fileExists(atPath: file.copy) {
                    try FileManager.default.copyItem(atPath: file.copy, toPath: file.live)
                }
            }
        }

        /// `arguments` with the placeholders replaced.
        func resolve(_ arguments: [String]) -> [String] {
            arguments.map {
                $0.replacingOccurrences(of: "@KEYCHAIN", with: keychain.path)
                    .replacingOccurrences(of: "@MISSING", with: keychain.directory + "/missing.keychain-db")
            }
        }

        /// Runs `command` and `line` with `LATCHKEY_FAST_PATH` set to `mode` (`nil`: unset).
        func run(_ command: String, _ line: Line, mode: String?) throws -> Observation {
            var environment = environment
            environment["LATCHKEY_FAST_PATH"] = mode
            let result = try CLIRunner.latchkey(
                [command] + resolve(line.arguments),
                environment: environment,
                input: line.input
            )
            var observed = Observation(status: result.status, stdout: result.stdout, stderr: result.stderr)
            if command.hasPrefix("add-") && result.status == 0 { observed.items = try items() }
            return observed
        }

        /// Every item with its secret, as `dump-keychain --json -d` prints them, without the dates of creation and
        /// modification and the digest that covers them (`sha1`), which differ between two runs.
        func items() throws -> String {
            let dump = try CLIRunner.latchkey(["dump-keychain", "--json", "-d"], environment: environment)
            try #require(dump.status == 0, "dump-keychain: \(dump.stderr)")
            var items = try #require(try JSONSerialization.jsonObject(with: dump.stdoutData) as? [[String: Any]])
            for index in items.indices {
                var attributes = items[index]["attributes"] as? [String: Any] ?? [:]
                for name in ["cdat", "mdat", "sha1"] { attributes[name] = nil }
                items[index]["attributes"] = attributes
            }
            let data = try JSONSerialization.data(withJSONObject: items, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Runs `line` of `command` as it comes and through the full parser, on the same keychain state, and expects
    /// the same observation; checks whether the fast path took it as `line.takesFastPath` says.
    func expectAgreement(_ command: String, _ line: Line, in fixture: Fixture) throws {
        let label = "\(command) \(line)"
        var fast = try fixture.run(command, line, mode: "only")
        let declined = fast.status == 64 && fast.stderr.contains("LATCHKEY_FAST_PATH=only")
        if let expected = line.takesFastPath {
            #expect(!declined == expected, "\(label): the fast path \(declined ? "left it" : "took it")")
        }
        if declined { fast = try fixture.run(command, line, mode: nil) }
        if command.hasPrefix("add-") { try fixture.restore() }
        let full = try fixture.run(command, line, mode: "off")
        #expect(fast == full, "\(label)\n-- as it comes:\n\(fast)\n-- through ArgumentParser:\n\(full)")
        if command.hasPrefix("add-") { try fixture.restore() }
    }

    @Test(arguments: options)
    func everyOptionGivesTheSameAnswerOnTheFastPathAndThroughArgumentParser(option: Option) throws {
        let fixture = try Fixture()
        for line in Self.lines(option) { try expectAgreement(option.command, line, in: fixture) }
    }

    @Test(arguments: [findGeneric, findInternet, addGeneric, addInternet])
    func otherCommandLinesGiveTheSameAnswerBothWays(command: String) throws {
        let fixture = try Fixture()
        for (_, line) in Self.extraLines.filter({ $0.0 == command }) {
            try expectAgreement(command, line, in: fixture)
        }
    }

    /// The options this test drives are exactly those ArgumentParser declares for each command
    /// (`--experimental-dump-help`), so an option added to a command is not left out of the comparison.
    @Test(arguments: [findGeneric, findInternet, addGeneric, addInternet])
    func everyOptionOfTheFastCommandsIsCovered(command: String) throws {
        let keychain = TemporaryKeychain()
        let dump = try CLIRunner.latchkey(
            [command, "--experimental-dump-help"],
            environment: CLIRunner.environment(keychain)
        )
        try #require(dump.status == 0, "\(dump.stderr)")
        let tool = try #require(try JSONSerialization.jsonObject(with: dump.stdoutData) as? [String: Any])
        let arguments = try #require((tool["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        var declared: Set<String> = []
        for argument in arguments {
            for name in argument["names"] as? [[String: Any]] ?? [] {
                guard let text = name["name"] as? String else { continue }
                declared.insert((name["kind"] as? String == "short" ? "-" : "--") + text)
            }
        }
        let driven = Set(Self.options.filter { $0.command == command }.flatMap(\.spellings))
        #expect(
            declared == driven,
            "declared but not driven: \(declared.subtracting(driven)); driven but not declared: \(driven.subtracting(declared))"
        )
    }
}
