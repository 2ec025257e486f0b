import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A progress bar on standard error for the commands that take seconds on a large keychain (`export`, `import`,
/// `dump-keychain`, `verify-keychain`).
///
/// It is shown only when standard error is a terminal (and `TERM` is not `dumb`), never with `--json`, and it
/// never writes on standard output. It is one line, redrawn in place (`\r`, then erase-line) on each update
/// and ten times a second while one long step runs (its elapsed time and, for a step without a known fraction,
/// a moving block), and erased when the command ends or prints anything on standard error (`warn`,
/// `reportError`, a prompt). Nothing secret or item-specific is shown: the command, the step and counts.
final class ProgressBar: @unchecked Sendable {
    // SAFETY: the mutable state below is read and written only with `lock` held; the ticker thread and the
    // command's thread share nothing else.

    /// The bar being shown, if any; `finish()` clears it.
    nonisolated(unsafe) static var current: ProgressBar?

    private let lock = NSCondition()
    private let title: String
    private let started = Date()
    private var step = ""
    private var fraction: Double?
    private var detail = ""
    private var finished = false
    private var ticks = 0

    /// Starts a bar titled `title` when standard error is a terminal and `enabled` (not `--json`); else `nil`.
    ///
    /// - Parameters:
    ///   - title: The command, shown first (`export`).
    ///   - enabled: `false` to show nothing (`--json` output).
    static func start(_ title: String, enabled: Bool = true) -> ProgressBar? {
        guard enabled, isatty(STDERR_FILENO) == 1, ProcessInfo.processInfo.environment["TERM"] != "dumb" else {
            return nil
        }
        current?.finish()
        let bar = ProgressBar(title: title)
        current = bar
        bar.draw()
        let ticker = Thread { [bar] in bar.tick() }
        ticker.start()
        return bar
    }

    private init(title: String) {
        self.title = title
    }

    /// Shows `step` with the fraction done (`nil`: not known, a moving block) and a detail such as "4 000/10 000".
    func update(_ step: String, fraction: Double?, detail: String = "") {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        let changed =
            step != self.step || detail != self.detail
            || Int((fraction ?? -1) * 100) != Int((self.fraction ?? -1) * 100)
        self.step = step
        self.fraction = fraction.map { min(max($0, 0), 1) }
        self.detail = detail
        if changed { drawLocked() }
    }

    /// Erases the bar and stops redrawing it; further updates show nothing.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        Self.write("\r\u{1B}[2K")
        lock.broadcast()
        if Self.current === self { Self.current = nil }
    }

    /// Redraws ten times a second until `finish()`.
    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        while !finished {
            _ = lock.wait(until: Date(timeIntervalSinceNow: 0.1))
            if finished { break }
            ticks += 1
            drawLocked()
        }
    }

    private func draw() {
        lock.lock()
        defer { lock.unlock() }
        drawLocked()
    }

    /// Writes the line: `export  [#########...........]  45%  reading items  4 500/10 000  2.1s`.
    private func drawLocked() {
        guard !finished else { return }
        let width = 24
        var bar: [Character] = Array(repeating: ".", count: width)
        var percent = "    "
        if let fraction {
            let filled = Int(fraction * Double(width))
            for index in 0..<filled { bar[index] = "#" }
            percent = String(String(format: "%3d%%", Int(fraction * 100)).suffix(4))
        } else {
            let block = 4
            let position = ticks % (2 * (width - block))
            let start = position < width - block ? position : 2 * (width - block) - position
            for index in start..<start + block { bar[index] = "#" }
        }
        let elapsed = String(format: "%.1fs", Date().timeIntervalSince(started))
        var line = "\(title)  [\(String(bar))] \(percent)  \(step)"
        if !detail.isEmpty { line += "  \(detail)" }
        line += "  \(elapsed)"
        let columns = Self.columns()
        if line.count > columns - 1 { line = String(line.prefix(max(columns - 1, 0))) }
        Self.write("\r\u{1B}[2K" + line)
    }

    /// The terminal's width on standard error, else 80.
    private static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

extension ProgressBar {
    /// `done` of `total` as "4 000/10 000".
    static func count(_ done: Int, of total: Int) -> String {
        "\(grouped(done))/\(grouped(total))"
    }

    private static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(" ") }
            out.append(digit)
        }
        return out
    }
}
