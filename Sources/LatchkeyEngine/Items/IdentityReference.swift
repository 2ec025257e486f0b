import Foundation

/// One identity named by its parts: a certificate (its DER) and the private key whose application label
/// (`klbl`) equals the certificate's public-key hash (`pkhh`).
public struct IdentityReference: Sendable, Hashable {
    /// The certificate's DER bytes.
    public var certificate: Data
    /// The private key's application label (SHA-1 of its public key, Apple's `klbl`).
    public var keyLabel: Data

    /// Names an identity.
    public init(certificate: Data, keyLabel: Data) {
        self.certificate = certificate
        self.keyLabel = keyLabel
    }
}
