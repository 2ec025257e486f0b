import Logging
import Synchronization

/// A swift-log handler that keeps every line (message and metadata) for inspection.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// Everything logged so far.
    var all: [String] { lines.withLock { $0 } }

    /// A logger at `.trace` writing here.
    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            capture.append("\(event.level) \(event.message) \(merged)")
        }
    }
}
