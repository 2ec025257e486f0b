import Crypto
import Foundation
import Latchkey

/// The access log's X25519 key pair, kept in the keychain it logs, in the reserved access group
/// `latchkey.access-log` (no client of the agent can be given a group starting with `latchkey.`:
/// `AccessPolicy.validate(group:)`).
///
/// The public key is an `Always` generic password, so the agent reads it even while the keychain is locked;
/// the private key is `AfterFirstUnlock`, so reading the log needs the keychain's credential. The agent makes
/// both the first time the keychain is unlocked (`ensure(in:)`); `latchkey access log` reads the private key
/// in process (`privateKey(in:)`).
public enum AccessLogKeys {
    /// The reserved access group of the two items.
    public static let accessGroup = "latchkey.access-log"
    /// The items' service (`svce`).
    static let service = "latchkey.access-log"
    /// The public key's account (`acct`).
    static let publicAccount = "public-key"
    /// The private key's account (`acct`).
    static let privateAccount = "private-key"

    private static func query(_ account: String) -> ItemQuery {
        ItemQuery(
            .genericPassword,
            attributes: [
                .service: .string(service), .account: .string(account), .accessGroup: .string(accessGroup),
            ]
        )
    }

    /// The public key, or `nil` when it does not exist yet (or cannot be read now).
    ///
    /// - Parameter store: The keychain, seen with (at least) the reserved group.
    static func publicKey(in store: any KeychainService) -> Curve25519.KeyAgreement.PublicKey? {
        guard let item = try? store.findFirst(query(publicAccount), withData: true), let data = item.data else {
            return nil
        }
        return data.withUnsafeBytes { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0) }
    }

    /// The public key, made with its private key when missing (the keychain must be unlocked for that).
    ///
    /// - Throws: What the keychain throws (`interactionNotAllowed` while locked).
    static func ensure(in store: any KeychainService) throws(KeychainError) -> Curve25519.KeyAgreement.PublicKey {
        if let existing = publicKey(in: store) { return existing }
        let privateKey: Curve25519.KeyAgreement.PrivateKey
        if let item = try store.findFirst(query(privateAccount), withData: true), let data = item.data,
            let known = data.withUnsafeBytes({ try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) })
        {
            privateKey = known
        } else {
            privateKey = Curve25519.KeyAgreement.PrivateKey()
            try store.upsert(
                .genericPassword,
                attributes: attributes(privateAccount, .afterFirstUnlock, "Latchkey access log private key"),
                data: SecretData(privateKey.rawRepresentation)
            )
        }
        try store.upsert(
            .genericPassword,
            attributes: attributes(publicAccount, .always, "Latchkey access log public key"),
            data: SecretData(privateKey.publicKey.rawRepresentation)
        )
        return privateKey.publicKey
    }

    private static func attributes(
        _ account: String,
        _ accessibility: Accessibility,
        _ label: String
    ) -> [AttributeName: AttributeValue] {
        [
            .service: .string(service), .account: .string(account), .accessGroup: .string(accessGroup),
            .accessible: .string(accessibility.rawValue), .label: .string(label),
        ]
    }

    /// The private key's 32 bytes, for `AccessLogReader`.
    ///
    /// - Parameter store: The keychain opened in process with the reserved group, unlocked.
    /// - Throws: `itemNotFound` when the log has no key yet (the agent makes it at the keychain's first
    ///   unlock), `interactionNotAllowed` while the keychain is locked.
    public static func privateKey(in store: any KeychainService) throws(KeychainError) -> SecretData {
        guard let item = try store.findFirst(query(privateAccount), withData: true), let data = item.data else {
            throw KeychainError(
                .itemNotFound,
                "The keychain holds no access-log key: the agent makes it the first time the keychain is unlocked."
            )
        }
        return data
    }
}
