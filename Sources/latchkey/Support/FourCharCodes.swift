/// Apple's four-character codes for `kSecAttrProtocol` and `kSecAttrAuthenticationType`, and the friendly
/// names the CLI also accepts.
enum FourCharCodes {
    /// URL scheme → `kSecAttrProtocol` code (`SecItemConstants.c`).
    static let protocols: [String: String] = [
        "ftp": "ftp ", "ftpaccount": "ftpa", "http": "http", "irc": "irc ", "nntp": "nntp", "pop3": "pop3",
        "smtp": "smtp", "socks": "sox ", "imap": "imap", "ldap": "ldap", "appletalk": "atlk", "afp": "afp ",
        "telnet": "teln", "ssh": "ssh ", "ftps": "ftps", "https": "htps", "httpproxy": "htpx",
        "httpsproxy": "htsx", "ftpproxy": "ftpx", "smb": "smb ", "rtsp": "rtsp", "rtspproxy": "rtsx",
        "daap": "daap", "eppc": "eppc", "ipp": "ipp ", "nntps": "ntps", "ldaps": "ldps", "telnets": "tels",
        "imaps": "imps", "ircs": "ircs", "pop3s": "pops", "cifs": "cifs",
    ]

    /// Friendly name → `kSecAttrAuthenticationType` code.
    static let authenticationTypes: [String: String] = [
        "ntlm": "ntlm", "msn": "msna", "dpa": "dpaa", "rpa": "rpaa", "httpbasic": "http", "httpdigest": "httd",
        "htmlform": "form", "form": "form", "default": "dflt",
    ]

    /// The protocol code for a scheme name or a code: `https` → `htps`, `ftp` → `ftp `, `htps` → `htps`;
    /// `nil` for anything else.
    ///
    /// Names and codes are matched without regard to case; a code shorter than four characters is padded with
    /// spaces, as Apple's are (`sox` → `sox `).
    static func protocolCode(_ text: String) -> String? {
        code(text, names: protocols)
    }

    /// The authentication-type code for a friendly name or a code (`htmlform` → `form`, `dflt` → `dflt`);
    /// `nil` for anything else.
    static func authenticationTypeCode(_ text: String) -> String? {
        code(text, names: authenticationTypes)
    }

    /// What `-r` accepts, for the message that refuses anything else: the codes, then the names.
    static var acceptedProtocols: String { accepted(protocols) }

    /// What `-t` accepts, for the message that refuses anything else: the codes, then the names.
    static var acceptedAuthenticationTypes: String { accepted(authenticationTypes) }

    private static func code(_ text: String, names: [String: String]) -> String? {
        let lowered = text.lowercased()
        if let code = names[lowered] { return code }
        let codes = Set(names.values)
        if codes.contains(lowered) { return lowered }
        if lowered.count < 4 {
            let padded = lowered + String(repeating: " ", count: 4 - lowered.count)
            if codes.contains(padded) { return padded }
        }
        return nil
    }

    private static func accepted(_ names: [String: String]) -> String {
        let codes = Set(names.values).sorted().map { "'\($0)'" }
        let friendly = names.keys.filter { names[$0] != $0 }.sorted()
        return "codes " + codes.joined(separator: ", ") + "; names " + friendly.joined(separator: ", ")
    }
}
