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

    /// The protocol code for a scheme name or a code given as is: `https` → `htps`, `ftp` → `ftp `, `htps` → `htps`.
    ///
    /// Codes shorter than four characters are padded with spaces, as Apple's are (`ssh` → `ssh `). Any
    /// other text is kept as given, so no two different inputs collapse onto one stored value.
    static func protocolCode(_ text: String) -> String {
        let lowered = text.lowercased()
        if let code = protocols[lowered] { return code }
        return text
    }

    /// The authentication-type code for a friendly name or a code given as is.
    static func authenticationTypeCode(_ text: String) -> String {
        authenticationTypes[text.lowercased()] ?? text
    }
}
