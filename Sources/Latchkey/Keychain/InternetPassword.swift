import Foundation

/// The protocol of an internet password (`kSecAttrProtocol`): Apple's four-character codes.
///
/// Open: any code survives a round trip, including ones this build does not name.
public struct InternetProtocol: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The four-character code, as `kSecAttrProtocol*` holds it (`"htps"` for HTTPS).
    public let rawValue: String

    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a code given as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `kSecAttrProtocolHTTPS`.
    public static let https: InternetProtocol = "htps"
    /// `kSecAttrProtocolHTTP`.
    public static let http: InternetProtocol = "http"
    /// `kSecAttrProtocolFTP`.
    public static let ftp: InternetProtocol = "ftp "
    /// `kSecAttrProtocolFTPS`.
    public static let ftps: InternetProtocol = "ftps"
    /// `kSecAttrProtocolSSH`.
    public static let ssh: InternetProtocol = "ssh "
    /// `kSecAttrProtocolSMTP`.
    public static let smtp: InternetProtocol = "smtp"
    /// `kSecAttrProtocolIMAP`.
    public static let imap: InternetProtocol = "imap"
    /// `kSecAttrProtocolIMAPS`.
    public static let imaps: InternetProtocol = "imps"
    /// `kSecAttrProtocolPOP3`.
    public static let pop3: InternetProtocol = "pop3"
    /// `kSecAttrProtocolPOP3S`.
    public static let pop3s: InternetProtocol = "pops"
    /// `kSecAttrProtocolLDAP`.
    public static let ldap: InternetProtocol = "ldap"
    /// `kSecAttrProtocolLDAPS`.
    public static let ldaps: InternetProtocol = "ldps"
    /// `kSecAttrProtocolSMB`.
    public static let smb: InternetProtocol = "smb "
    /// `kSecAttrProtocolSOCKS`.
    public static let socks: InternetProtocol = "sox "
    /// `kSecAttrProtocolHTTPProxy`.
    public static let httpProxy: InternetProtocol = "htpx"
    /// `kSecAttrProtocolHTTPSProxy`.
    public static let httpsProxy: InternetProtocol = "htsx"
}

/// The authentication scheme of an internet password (`kSecAttrAuthenticationType`): Apple's codes.
public struct InternetAuthenticationType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The four-character code (`"dflt"` for the default).
    public let rawValue: String

    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a code given as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `kSecAttrAuthenticationTypeDefault`.
    public static let `default`: InternetAuthenticationType = "dflt"
    /// `kSecAttrAuthenticationTypeHTTPBasic`.
    public static let httpBasic: InternetAuthenticationType = "http"
    /// `kSecAttrAuthenticationTypeHTTPDigest`.
    public static let httpDigest: InternetAuthenticationType = "httd"
    /// `kSecAttrAuthenticationTypeHTMLForm`.
    public static let htmlForm: InternetAuthenticationType = "form"
    /// `kSecAttrAuthenticationTypeNTLM`.
    public static let ntlm: InternetAuthenticationType = "ntlm"
    /// `kSecAttrAuthenticationTypeMSN`.
    public static let msn: InternetAuthenticationType = "msna"
    /// `kSecAttrAuthenticationTypeDPA`.
    public static let dpa: InternetAuthenticationType = "dpaa"
    /// `kSecAttrAuthenticationTypeRPA`.
    public static let rpa: InternetAuthenticationType = "rpaa"
}

/// Where an internet password is used: server, account and, optionally, protocol, port, path,
/// authentication type and security domain (`kSecClassInternetPassword`'s primary key).
///
/// A field left `nil` matches any value when reading, and is stored as Apple's default (empty or
/// zero) when writing, so `InternetPassword(server: "example.com", account: "alice")` finds Alice's
/// password for that server whatever its protocol.
///
/// ```swift
/// let site = InternetPassword(server: "api.example.com", account: "alice", protocol: .https)
/// try keychain.setPassword("s3cret", for: site)
/// let password = try keychain.password(for: site)
/// ```
public struct InternetPassword: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name (`kSecAttrServer`).
    public var server: String
    /// The account (`kSecAttrAccount`).
    public var account: String
    /// The protocol (`kSecAttrProtocol`).
    public var `protocol`: InternetProtocol?
    /// The port (`kSecAttrPort`); `nil` or 0 for unspecified.
    public var port: Int?
    /// The path (`kSecAttrPath`).
    public var path: String?
    /// The authentication scheme (`kSecAttrAuthenticationType`).
    public var authenticationType: InternetAuthenticationType?
    /// The security domain or realm (`kSecAttrSecurityDomain`).
    public var securityDomain: String?

    /// Describes an internet password.
    ///
    /// - Parameters:
    ///   - server: The host name.
    ///   - account: The user name.
    ///   - protocol: The protocol, or `nil` for any/unspecified.
    ///   - port: The port, or `nil` for any/unspecified.
    ///   - path: The path, or `nil` for any/unspecified.
    ///   - authenticationType: The scheme, or `nil` for any/unspecified.
    ///   - securityDomain: The realm, or `nil` for any/unspecified.
    public init(
        server: String,
        account: String,
        protocol: InternetProtocol? = nil,
        port: Int? = nil,
        path: String? = nil,
        authenticationType: InternetAuthenticationType? = nil,
        securityDomain: String? = nil
    ) {
        self.server = server
        self.account = account
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
    }

    /// The given fields as attributes (what a query matches and a new item stores).
    var attributes: [AttributeName: AttributeValue] {
        var attributes: [AttributeName: AttributeValue] = [.server: .string(server), .account: .string(account)]
        if let `protocol` { attributes[.protocol] = .string(`protocol`.rawValue) }
        if let port { attributes[.port] = .number(Int64(port)) }
        if let path { attributes[.path] = .string(path) }
        if let authenticationType { attributes[.authenticationType] = .string(authenticationType.rawValue) }
        if let securityDomain { attributes[.securityDomain] = .string(securityDomain) }
        return attributes
    }

    /// Reads a stored item's fields; Apple's defaults (empty, zero) become `nil`.
    init?(attributes: [AttributeName: AttributeValue]) {
        guard let server = KeychainItemMetadata.text(attributes[.server]),
            let account = KeychainItemMetadata.text(attributes[.account])
        else { return nil }
        func nonEmpty(_ name: AttributeName) -> String? {
            KeychainItemMetadata.text(attributes[name]).flatMap { $0.isEmpty ? nil : $0 }
        }
        self.init(
            server: server,
            account: account,
            protocol: Self.code(attributes[.protocol]).map(InternetProtocol.init(rawValue:)),
            port: attributes[.port]?.numberValue.flatMap { $0 == 0 ? nil : Int($0) },
            path: nonEmpty(.path),
            authenticationType: Self.code(attributes[.authenticationType]).map(
                InternetAuthenticationType.init(rawValue:)
            ),
            securityDomain: nonEmpty(.securityDomain)
        )
    }

    /// A four-character code stored as a string, or as the number form Apple uses for FourCharCodes.
    private static func code(_ value: AttributeValue?) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .data(let bytes): return String(data: bytes, encoding: .utf8).flatMap { $0.isEmpty ? nil : $0 }
        case .number(let number) where number != 0:
            let bytes = withUnsafeBytes(of: UInt32(truncatingIfNeeded: number).bigEndian) { Array($0) }
            return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }

    /// Which fields are set; no value is printed.
    public var description: String {
        let fields = [
            ("protocol", `protocol` != nil), ("port", port != nil), ("path", path != nil),
            ("authenticationType", authenticationType != nil), ("securityDomain", securityDomain != nil),
        ].filter(\.1).map(\.0)
        return "InternetPassword(server, account\(fields.map { ", " + $0 }.joined()))"
    }
}

/// One stored internet password with its metadata, as `Keychain.internetPasswords(forServer:)` lists them.
@dynamicMemberLookup
public struct InternetPasswordInfo: Sendable, Hashable, CustomStringConvertible {
    /// The stored item's server, account, protocol, port, path, authentication type and domain.
    public var internetPassword: InternetPassword
    /// Dates, label, comment, accessibility, group, sync flag.
    public var metadata: KeychainItemMetadata

    /// Makes an item description.
    public init(internetPassword: InternetPassword, metadata: KeychainItemMetadata) {
        self.internetPassword = internetPassword
        self.metadata = metadata
    }

    /// A metadata field.
    public subscript<T>(dynamicMember path: KeyPath<KeychainItemMetadata, T>) -> T { metadata[keyPath: path] }

    /// The metadata's description; no attribute value is printed.
    public var description: String { "InternetPasswordInfo(\(metadata))" }
}
