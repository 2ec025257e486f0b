import Crypto
import Foundation
import Latchkey

/// Reads the agent's access log with the log's private key (`AccessLogKeys.privateKey(in:)`): the rotated
/// file, then the current one, segment by segment (`AccessLogFormat`).
///
/// Nothing in a file makes it throw: a record cut off by a crash (the tail, or the middle when the next agent
/// run appended after it) is reported as damaged and skipped, and reading resumes at the next segment header;
/// an entry or header that fails authentication is reported as tampered.
///
/// ```swift
/// let log = try AccessLogReader(privateKey: key).read(AccessLogFiles(keychainPath: path))
/// for entry in log.entries { print(entry.event.name) }
/// ```
public struct AccessLogReader: Sendable {
    /// What was read.
    public struct Result: Sendable {
        /// The authentic entries, oldest first.
        public var entries: [AccessLogEntry] = []
        /// What could not be read, one sentence each (file, offset, what), in file order.
        public var problems: [Problem] = []
    }

    /// Something a reader skipped.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem.
        public enum Kind: String, Sendable, Hashable {
            /// Bytes that are not a complete record: a crash mid-write, or a truncated file.
            case damaged
            /// A record that fails authentication: changed, removed or reordered entries, or another key.
            case tampered
        }

        /// What kind.
        public var kind: Kind
        /// The file.
        public var file: String
        /// The byte offset in the file.
        public var offset: Int
        /// What was skipped.
        public var detail: String

        /// One line for standard error.
        public var description: String { "\(file) at byte \(offset): \(kind.rawValue): \(detail)" }
    }

    private let key: Curve25519.KeyAgreement.PrivateKey

    /// A reader with the log's private key (32 raw bytes).
    ///
    /// - Throws: `KeychainError.Code.decode` when the bytes are not an X25519 private key.
    public init(privateKey: SecretData) throws(KeychainError) {
        do {
            key = try privateKey.withUnsafeBytes { try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
        } catch {
            throw KeychainError(.decode, "The access log's private key in the keychain is not an X25519 key.")
        }
    }

    /// Reads the rotated file, then the current one (a missing file is no problem).
    public func read(_ files: AccessLogFiles) -> Result {
        var result = Result()
        for path in [files.rotatedPath, files.currentPath] {
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            read(bytes, file: path, into: &result)
        }
        return result
    }

    /// Reads one file's bytes into `result`.
    public func read(_ bytes: Data, file: String, into result: inout Result) {
        let data = Data(bytes)  // indices from 0
        var offset = 0
        var session: SymmetricKey?
        var counter: UInt64 = 0
        var unreadable = 0
        func flushUnreadable(at position: Int) {
            guard unreadable > 0 else { return }
            result.problems.append(
                Problem(
                    kind: .tampered,
                    file: file,
                    offset: position,
                    detail: "\(unreadable) entries of a segment whose header does not open"
                )
            )
            unreadable = 0
        }
        while offset < data.count {
            let remaining = data.count - offset
            var end = data.count
            var length = 0
            var type: UInt8 = 0
            if remaining >= 5 {
                type = data[offset]
                length = data[offset + 1..<offset + 5].reduce(0) { $0 << 8 | Int($1) }
                end = offset + 5 + length
            }
            let known = remaining >= 5 && (type == AccessLogFormat.headerType || type == AccessLogFormat.entryType)
            let complete = known && length <= AccessLogFormat.maximumRecord && end <= data.count
            // A header inside this record's span means the record was cut off and a later run started after it.
            let searchEnd = complete ? end : data.count
            let nextHeader =
                offset + 1 < searchEnd
                ? data.range(of: AccessLogFormat.headerPrefix, in: offset + 1..<searchEnd)?.lowerBound : nil
            guard complete, nextHeader == nil else {
                flushUnreadable(at: offset)
                let resume = nextHeader ?? data.count
                let what = resume == data.count ? "an incomplete record at the end of the file" : "an incomplete record"
                result.problems.append(
                    Problem(kind: .damaged, file: file, offset: offset, detail: "\(what) (\(resume - offset) bytes)")
                )
                offset = resume
                session = nil
                continue
            }
            let payload = data.subdata(in: offset + 5..<end)
            if type == AccessLogFormat.headerType {
                flushUnreadable(at: offset)
                do throws(KeychainError) {
                    session = try AccessLogFormat.openSegment(payload, with: key)
                    counter = 0
                } catch {
                    session = nil
                    result.problems.append(
                        Problem(
                            kind: .tampered,
                            file: file,
                            offset: offset,
                            detail:
                                "a segment header: \(error.message) (changed, or sealed to another log key: a keychain restored "
                                + "from a backup or made anew gets a new key, and older segments stay unreadable)"
                        )
                    )
                }
            } else if let key = session {
                do throws(KeychainError) {
                    let plaintext = try AccessLogFormat.openEntry(payload, key: key, counter: counter)
                    result.entries.append(try AccessLogEntry.decode(plaintext))
                } catch {
                    result.problems.append(
                        Problem(
                            kind: .tampered,
                            file: file,
                            offset: offset,
                            detail: "entry \(counter): \(error.message)"
                        )
                    )
                }
                counter += 1
            } else {
                unreadable += 1
            }
            offset = end
        }
        flushUnreadable(at: offset)
    }
}
