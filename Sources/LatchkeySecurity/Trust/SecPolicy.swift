#if !canImport(Darwin)
import Foundation

/// `SecPolicy`: the rules a trust evaluation applies to a certificate chain (mirrors Apple's `SecPolicyRef`).
///
/// Two kinds exist here, the two every TLS and certificate-pinning library uses: the basic X.509 policy
/// (`SecPolicyCreateBasicX509`) and the SSL policy (`SecPolicyCreateSSL`), which adds the host-name check.
/// A policy is immutable; `SecTrust` evaluates the policies it holds together (every one must pass).
///
/// Known differences from Apple: no other policy kinds (S/MIME, code signing, revocation, EAP...); the SSL
/// policy does not check the extended key usage (see `SecPolicyCreateSSL`).
public final class SecPolicy: Hashable, Sendable, CustomStringConvertible {
    /// What a policy checks.
    enum Kind: Hashable, Sendable {
        /// RFC 5280 path validation: signatures, validity dates, basic and name constraints.
        case basicX509
        /// `basicX509` plus, when `hostname` is set, the leaf's identity (RFC 6125) for that host name or IP
        /// address. `server` is `true` for the policy a TLS client applies to a server's certificate.
        case ssl(server: Bool, hostname: String?)
    }

    /// What this policy checks.
    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// Equal when they check the same things.
    public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool {
        lhs.kind == rhs.kind
    }

    /// Hashes what the policy checks.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
    }

    /// A description naming the policy kind, e.g. `<SecPolicy SSL server example.com>`.
    public var description: String {
        switch kind {
        case .basicX509: "<SecPolicy basic X.509>"
        case .ssl(let server, let hostname):
            "<SecPolicy SSL \(server ? "server" : "client")\(hostname.map { " " + $0 } ?? "")>"
        }
    }
}

/// `SecPolicyGetTypeID`: the type identifier of `SecPolicy` objects (Latchkey's own number, not Apple's).
public func SecPolicyGetTypeID() -> CFTypeID { 304 }

/// `SecPolicyCreateBasicX509`: the basic X.509 policy (mirrors Apple's function).
///
/// A chain passes when it is built from the evaluated certificates to a trusted anchor with valid signatures,
/// every certificate is valid on the verify date, and RFC 5280's basic and name constraints hold.
///
/// - Returns: The policy.
public func SecPolicyCreateBasicX509() -> SecPolicy {
    SecPolicy(.basicX509)
}

/// `SecPolicyCreateSSL`: the policy for evaluating TLS certificates (mirrors Apple's function).
///
/// The basic X.509 checks, plus, when `hostname` is given, that the leaf certificate is valid for it: a DNS
/// name (wildcards as RFC 6125 allows) or an IP address among the subject alternative names (the common name
/// only when the certificate has no DNS or IP names), as swift-certificates' `ServerIdentityPolicy` decides.
///
/// Known differences from Apple: the extended key usage (server or client authentication) is not checked, so
/// `server` only shows in `SecPolicyCopyProperties`; Apple's additional TLS rules (maximum validity periods,
/// Certificate Transparency, weak keys and hashes, pinning) are not applied. `hostname` is checked for a client
/// policy (`server == false`) too, as Apple adds the host-name check whenever a name is given.
///
/// - Parameters:
///   - server: `true` to evaluate a server's certificate (what a TLS client does), `false` for a client's.
///   - hostname: The host name or IP address the certificate must be valid for; `nil` to skip the check.
/// - Returns: The policy.
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { String($0) }))
}

/// `SecPolicyCopyProperties`: a policy's properties (mirrors Apple's function).
///
/// `kSecPolicyOid` is `kSecPolicyAppleX509Basic` or `kSecPolicyAppleSSL`; an SSL policy adds
/// `kSecPolicyName` (its host name, when it has one) and `kSecPolicyClient` (`kCFBooleanTrue` for a client
/// policy).
///
/// - Parameter policyRef: The policy.
/// - Returns: The properties dictionary.
public func SecPolicyCopyProperties(_ policyRef: SecPolicy) -> CFDictionary {
    let properties = NSMutableDictionary()
    switch policyRef.kind {
    case .basicX509:
        properties[kSecPolicyOid] = kSecPolicyAppleX509Basic
    case .ssl(let server, let hostname):
        properties[kSecPolicyOid] = kSecPolicyAppleSSL
        if let hostname { properties[kSecPolicyName] = NSString(string: hostname) }
        if !server { properties[kSecPolicyClient] = kCFBooleanTrue }
    }
    return properties
}
#endif
