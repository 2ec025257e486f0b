import Foundation

/// One request of git's credential-helper protocol: `key=value` lines up to a blank line or the end of input.
///
/// Values are taken byte for byte (no trimming, no truncation); the last of repeated keys wins, as in git.
/// Unknown keys (`wwwauth[]`, `capability[]`, `authtype`, `state[]`, ...) and lines without `=` are ignored.
/// A request that holds a NUL byte or a line longer than `maximumLineLength` is rejected as a whole, so an
/// overlong or hostile field can never be shortened into another host's name.
struct GitCredentialRequest: Equatable {
    /// The longest line accepted; git itself writes at most 65535 bytes per line.
    static let maximumLineLength = 65_536

    var fields: [String: String] = [:]

    var `protocol`: String? { fields["protocol"] }
    var username: String? { fields["username"] }
    var password: String? { fields["password"] }
    var path: String? { fields["path"] }
    var passwordExpiryUTC: String? { fields["password_expiry_utc"] }
    var oauthRefreshToken: String? { fields["oauth_refresh_token"] }
    /// git's `ephemeral` (2.46+): the credential must not be stored.
    var isEphemeral: Bool { ["1", "true"].contains(fields["ephemeral"]?.lowercased() ?? "") }

    /// The host without its port, and the port (0 when none): `example.com:8443` → (`example.com`, 8443).
    ///
    /// Only a final `:digits` in 1...65535 counts as a port; anything else stays part of the host, so two
    /// different inputs never map to the same host and port.
    var hostAndPort: (host: String, port: Int64)? {
        guard let host = fields["host"] else { return nil }
        if let colon = host.lastIndex(of: ":") {
            let digits = host[host.index(after: colon)...]
            if !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let port = Int64(digits), (1...65535).contains(port), String(port) == digits
            {
                return (String(host[..<colon]), port)
            }
        }
        return (host, 0)
    }

    enum ParseError: Error {
        case malformed
    }

    /// Parses a request from standard input's bytes.
    ///
    /// - Throws: `ParseError.malformed` for a NUL byte, an overlong line, or invalid UTF-8.
    static func parse(_ input: Data) throws -> GitCredentialRequest {
        var request = GitCredentialRequest()
        var lineStart = input.startIndex
        var index = input.startIndex
        func take(_ line: Data) throws -> Bool {
            guard line.count <= maximumLineLength, !line.contains(0) else { throw ParseError.malformed }
            var bytes = line
            if bytes.last == 0x0D { bytes.removeLast() }
            if bytes.isEmpty { return false }
            guard let text = String(data: bytes, encoding: .utf8) else { throw ParseError.malformed }
            guard let equals = text.firstIndex(of: "=") else { return true }
            let key = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            request.fields[key] = value
            if key == "url" { request.applyURL(value) }
            return true
        }
        while index < input.endIndex {
            if input[index] == 0x0A {
                if try !take(input[lineStart..<index]) { return request }
                lineStart = input.index(after: index)
            }
            index = input.index(after: index)
        }
        if lineStart < input.endIndex { _ = try take(input[lineStart..<input.endIndex]) }
        return request
    }

    /// Fills protocol, host, path, username and password from a `url=` line, as git does.
    mutating func applyURL(_ url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme else { return }
        fields["protocol"] = scheme
        if let host = components.percentEncodedHost {
            fields["host"] = components.port.map { "\(host):\($0)" } ?? host
        }
        let path = components.percentEncodedPath.drop { $0 == "/" }
        if !path.isEmpty { fields["path"] = String(path) }
        if let user = components.user { fields["username"] = user }
        if let password = components.password { fields["password"] = password }
    }
}

/// The secret stored for a git credential: the password, then optional `key=value` lines for the attributes
/// git expects back (`password_expiry_utc`, `oauth_refresh_token`), as git-credential-osxkeychain stores them.
struct GitStoredSecret: Equatable {
    var password: String
    var passwordExpiryUTC: String?
    var oauthRefreshToken: String?

    var encoded: String {
        var text = password
        if let passwordExpiryUTC { text += "\npassword_expiry_utc=\(passwordExpiryUTC)" }
        if let oauthRefreshToken { text += "\noauth_refresh_token=\(oauthRefreshToken)" }
        return text
    }

    init(password: String, passwordExpiryUTC: String? = nil, oauthRefreshToken: String? = nil) {
        self.password = password
        self.passwordExpiryUTC = passwordExpiryUTC
        self.oauthRefreshToken = oauthRefreshToken
    }

    init(decoding text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        password = lines.isEmpty ? "" : lines.removeFirst()
        for line in lines {
            if line.hasPrefix("password_expiry_utc=") {
                passwordExpiryUTC = String(line.dropFirst("password_expiry_utc=".count))
            } else if line.hasPrefix("oauth_refresh_token=") {
                oauthRefreshToken = String(line.dropFirst("oauth_refresh_token=".count))
            }
        }
    }
}
