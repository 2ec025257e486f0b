import Foundation
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A pinentry stand-in for tests: a small Python program, written into a test directory, that speaks the
/// Assuan protocol as pinentry does. It greets with `OK`, answers `OPTION` and `SET*` with `OK`, answers each
/// `CONFIRM` or `GETPIN` with the next line of its answers file (consumed as it goes, across runs), and
/// appends every command it receives to its log (never a PIN: it does not receive one).
///
/// Answers: `OK` (the OK button), `NOTOK` (the Not-OK button: `ERR 83886194`), `CANCEL` (`ERR 83886179`),
/// `PIN <text>` (`D <text>` then `OK`), `HANG` (no answer until the agent gives up or kills it), `TIMEOUT`
/// (pinentry's own timeout: `ERR 83886142`). With no
/// answer left it cancels. A command is logged before its answer is taken from the file, so a pinentry killed
/// right after logging may leave the answers file empty. `waitForCommands(named:count:timeout:)` waits for
/// the log to show a question.
///
/// ```swift
/// let pinentry = try ScriptedPinentry(directory: keychain.directory)
/// pinentry.answer(["OK"])
/// // ... agent started with --pinentry pinentry.path ...
/// #expect(pinentry.commands(named: "CONFIRM").count == 1)
/// ```
public struct ScriptedPinentry {
    /// The program, for `--pinentry` or `LATCHKEY_PINENTRY`.
    public let path: String
    /// Every command line received, one per line.
    public let logPath: String
    /// The answers still to give, one per line.
    public let answersPath: String

    /// Writes the program into `directory`.
    ///
    /// - Throws: A failed requirement naming the Debian package when `python3` is missing.
    public init(directory: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let python = try Peer.require("python3", package: "python3", sourceLocation: sourceLocation)
        path = directory + "/pinentry-scripted"
        logPath = directory + "/pinentry.log"
        answersPath = directory + "/pinentry.answers"
        let program = """
            #!\(python)
            import sys
            LOG = \(Self.pythonString(logPath))
            ANSWERS = \(Self.pythonString(answersPath))

            def log(line):
                with open(LOG, "a") as f:
                    f.write(line + "\\n")

            def next_answer():
                try:
                    with open(ANSWERS) as f:
                        lines = f.read().splitlines()
                except FileNotFoundError:
                    lines = []
                if not lines:
                    return "CANCEL"
                with open(ANSWERS, "w") as f:
                    f.write("".join(line + "\\n" for line in lines[1:]))
                return lines[0]

            def escape(text):
                return "".join("%{:02X}".format(ord(c)) if c in "%\\r\\n" else c for c in text)

            def send(line):
                sys.stdout.write(line + "\\n")
                sys.stdout.flush()

            send("OK Pleased to meet you")
            while True:
                raw = sys.stdin.readline()
                if not raw:
                    break
                line = raw.rstrip("\\n")
                log(line)
                command = line.split(" ", 1)[0]
                if command in ("CONFIRM", "GETPIN"):
                    answer = next_answer()
                    if answer == "OK":
                        send("OK")
                    elif answer == "NOTOK":
                        send("ERR 83886194 Not confirmed <Pinentry>")
                    elif answer.startswith("PIN "):
                        send("D " + escape(answer[4:]))
                        send("OK")
                    elif answer == "HANG":
                        sys.stdin.read()
                        break
                    elif answer == "TIMEOUT":
                        send("ERR 83886142 Timeout <Pinentry>")
                    else:
                        send("ERR 83886179 Operation cancelled <Pinentry>")
                elif command == "BYE":
                    send("OK closing connection")
                    break
                else:
                    send("OK")

            """
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data(program.utf8),
            attributes: [.posixPermissions: 0o755]
        )
    }

    /// Sets the answers to give, in order.
    public func answer(_ answers: [String]) {
        let text = answers.map { $0 + "\n" }.joined()
        _ = FileManager.default.createFile(
            atPath: answersPath,
            contents: Data(text.utf8),
            attributes: [.posixPermissions: 0o600]
        )
    }

    /// Every command line received so far.
    public var log: [String] {
        guard let data = FileManager.default.contents(atPath: logPath) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The received command lines whose command is `name` (`CONFIRM`, `GETPIN`, `SETDESC` …).
    public func commands(named name: String) -> [String] {
        log.filter { $0 == name || $0.hasPrefix(name + " ") }
    }

    /// Waits until at least `count` command lines named `name` were received (the log grows as the program
    /// runs: each wake-up is an inotify event in its directory), or `timeout` seconds passed.
    ///
    /// - Returns: Whether they were received in time.
    public func waitForCommands(named name: String, count: Int, timeout: TimeInterval) -> Bool {
        let directory = (logPath as NSString).deletingLastPathComponent
        let events = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard events >= 0 else { return false }
        defer { close(events) }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
        guard inotify_add_watch(events, directory, mask) >= 0 else { return false }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while commands(named: name).count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: events, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(min(remaining * 1000, 60_000)) + 1) > 0 {
                while scratch.withUnsafeMutableBytes({ read(events, $0.baseAddress, $0.count) }) > 0 {}
            }
        }
        return true
    }

    private static func pythonString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
