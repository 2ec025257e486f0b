import Foundation

/// The line format of the Assuan protocol that pinentry speaks (libassuan's documentation, "Client
/// requests" and "Server responses"): one command or response per line of at most 1000 bytes, the
/// characters `%`, CR and LF of a parameter written as `%25`, `%0D`, `%0A`.
package enum Assuan {
    /// The longest line libassuan accepts (`ASSUAN_LINELENGTH`), the newline included.
    package static let maximumLineLength = 1000

    /// One line from the server.
    package enum Response: Equatable, Sendable {
        /// `OK [text]`: the command succeeded.
        case ok
        /// `ERR <code> [text]`: the command failed with a gpg-error code.
        case error(code: UInt32, text: String)
        /// `D <data>`: data (percent-decoded); for `GETPIN`, the passphrase.
        case data([UInt8])
        /// `S <keyword> ...`: a status line, ignored.
        case status
        /// `INQUIRE <keyword>`: the server asks for data; answered with `CAN` (nothing to give).
        case inquire
        /// `# ...` or an empty line: a comment, ignored.
        case comment
    }

    /// `text` with `%`, CR and LF percent-escaped, as a command parameter must be; other control
    /// characters are escaped too, so that nothing a client chose can end a line early or inject a command.
    package static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar.value < 0x20 || scalar.value == 0x7F {
                out += String(format: "%%%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The bytes of a percent-escaped parameter with `%XX` decoded (a malformed escape stays as it is).
    package static func unescape(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    /// Parses one response line (without its newline).
    package static func parse(_ line: [UInt8]) -> Response {
        func starts(with word: String) -> Bool {
            let prefix = Array(word.utf8)
            guard line.count >= prefix.count, Array(line[0..<prefix.count]) == prefix else { return false }
            return line.count == prefix.count || line[prefix.count] == UInt8(ascii: " ")
        }
        if line.isEmpty || line[0] == UInt8(ascii: "#") { return .comment }
        if starts(with: "OK") { return .ok }
        if starts(with: "D") { return .data(unescape(line.dropFirst(2))) }
        if starts(with: "S") { return .status }
        if starts(with: "INQUIRE") { return .inquire }
        if starts(with: "ERR") {
            let rest = String(decoding: line.dropFirst(4), as: UTF8.self)
            let parts = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            let code = parts.first.flatMap { UInt32($0) } ?? 0
            return .error(code: code, text: parts.count > 1 ? String(parts[1]) : "")
        }
        return .error(code: 0, text: "unexpected line from pinentry")
    }

    /// The error code part of a gpg-error value (its low 16 bits; the high bits name the source).
    package static func errorCode(_ value: UInt32) -> UInt32 { value & 0xFFFF }

    /// `GPG_ERR_CANCELED`: the Cancel button, Escape or a closed window.
    package static let canceled: UInt32 = 99
    /// `GPG_ERR_NOT_CONFIRMED`: the Not-OK button of a three-button `CONFIRM`.
    package static let notConfirmed: UInt32 = 114
    /// `GPG_ERR_TIMEOUT`: pinentry's own `SETTIMEOUT` ran out.
    package static let timeout: UInt32 = 62

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
