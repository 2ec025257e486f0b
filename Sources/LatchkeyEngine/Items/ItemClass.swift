import LatchkeyStorage

/// The kind of a keychain item, with Apple's four-character class codes as raw values.
public enum ItemClass: String, Sendable, Hashable, CaseIterable, Codable {
    /// `kSecClassGenericPassword` (`genp`).
    case genericPassword = "genp"
    /// `kSecClassInternetPassword` (`inet`).
    case internetPassword = "inet"
    /// `kSecClassCertificate` (`cert`).
    case certificate = "cert"
    /// `kSecClassKey` (`keys`).
    case key = "keys"
    /// `kSecClassIdentity` (`idnt`): a private key joined with its certificate; no table of its own.
    case identity = "idnt"

    /// The classes that have their own table.
    public static let storable: [ItemClass] = [.genericPassword, .internetPassword, .certificate, .key]

    /// The table that stores items of this class; `nil` for identities.
    var table: ItemTable? {
        switch self {
        case .genericPassword: .genp
        case .internetPassword: .inet
        case .certificate: .cert
        case .key: .keys
        case .identity: nil
        }
    }
}
