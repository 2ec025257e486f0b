#if !canImport(Darwin)
import Foundation

// The policy property keys and policy identifiers `SecPolicyCopyProperties` answers with (Apple's values).

/// `kSecPolicyOid`: the key of a policy's identifier (`kSecPolicyAppleX509Basic`, `kSecPolicyAppleSSL`).
nonisolated(unsafe) public let kSecPolicyOid: CFString = "SecPolicyOid"
/// `kSecPolicyName`: the key of the name a policy checks (an SSL policy's host name).
nonisolated(unsafe) public let kSecPolicyName: CFString = "SecPolicyName"
/// `kSecPolicyClient`: the key that marks a client policy (`SecPolicyCreateSSL(false, ...)`).
nonisolated(unsafe) public let kSecPolicyClient: CFString = "SecPolicyClient"
/// `kSecPolicyAppleX509Basic`: the identifier of the basic X.509 policy.
nonisolated(unsafe) public let kSecPolicyAppleX509Basic: CFString = "1.2.840.113635.100.1.2"
/// `kSecPolicyAppleSSL`: the identifier of the SSL policy.
nonisolated(unsafe) public let kSecPolicyAppleSSL: CFString = "1.2.840.113635.100.1.3"
#endif
