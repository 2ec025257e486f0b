/// A `WWW-Authenticate` challenge (RFC 9110 §11.6.1) as RFC 6750 §3 uses it: a scheme plus parameters.
struct BearerChallenge: Sendable, Equatable {
    /// The scheme, as sent.
    var scheme: String
    /// The auth-params, names lower-cased, quoted values unquoted.
    var parameters: [String: String]

    /// Whether `response` is a 401 whose `Bearer` challenge says `error="invalid_token"`: the access token
    /// expired or was revoked, so one refresh and one retry may help (RFC 6750 §3.1).
    static func isInvalidToken(_ response: TransportResponse) -> Bool {
        guard response.status == 401 else { return false }
        return response.headerValues("WWW-Authenticate").flatMap(parse).contains { challenge in
            challenge.scheme.lowercased() == "bearer" && challenge.parameters["error"] == "invalid_token"
        }
    }

    /// Parses one header value into its challenges (`Basic realm="a", Bearer error="invalid_token"`).
    static func parse(_ header: String) -> [BearerChallenge] {
        var scanner = Scanner(Array(header.unicodeScalars))
        var challenges: [BearerChallenge] = []
        while true {
            scanner.skip(while: { $0 == " " || $0 == "\t" || $0 == "," })
            guard let scheme = scanner.token(), !scheme.isEmpty else { break }
            var challenge = BearerChallenge(scheme: scheme, parameters: [:])
            // Parameters: name=value pairs separated by commas, until a token not followed by "=".
            while true {
                let mark = scanner.position
                scanner.skip(while: { $0 == " " || $0 == "\t" || $0 == "," })
                guard let name = scanner.token(), !name.isEmpty else {
                    scanner.position = mark
                    break
                }
                scanner.skip(while: { $0 == " " || $0 == "\t" })
                guard scanner.take("=") else {
                    // token68 directly after the scheme, or the next challenge's scheme.
                    if challenge.parameters.isEmpty, scanner.peek == nil || scanner.peek == "," {
                        scanner.skip(while: { $0 == "=" })
                        break
                    }
                    scanner.position = mark
                    break
                }
                scanner.skip(while: { $0 == " " || $0 == "\t" })
                let value = scanner.quoted() ?? scanner.token() ?? ""
                challenge.parameters[name.lowercased()] = value
            }
            challenges.append(challenge)
        }
        return challenges
    }

    /// A cursor over unicode scalars.
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func skip(while predicate: (Unicode.Scalar) -> Bool) {
            while let scalar = peek, predicate(scalar) { position += 1 }
        }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard peek == scalar else { return false }
            position += 1
            return true
        }

        /// An RFC 9110 token (tchar+), or `nil` if none starts here.
        mutating func token() -> String? {
            let start = position
            while let scalar = peek, Self.isTokenCharacter(scalar) { position += 1 }
            guard position > start else { return nil }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[start..<position])
            return String(text)
        }

        /// A quoted-string with backslash escapes, or `nil` if none starts here.
        mutating func quoted() -> String? {
            guard take("\"") else { return nil }
            var text = String.UnicodeScalarView()
            while let scalar = peek {
                position += 1
                if scalar == "\"" { return String(text) }
                if scalar == "\\", let escaped = peek {
                    position += 1
                    text.append(escaped)
                } else {
                    text.append(scalar)
                }
            }
            return String(text)
        }

        static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": true
            case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
            // token68 (RFC 9110 §11.2) also allows "/"; accept it so such values scan as one token.
            case "/": true
            default: false
            }
        }
    }
}
