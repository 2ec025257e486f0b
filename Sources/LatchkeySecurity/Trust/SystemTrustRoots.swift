#if !canImport(Darwin)
import Foundation
import SwiftASN1
import X509

/// The system's trusted roots: Debian's `ca-certificates` bundle, read and parsed once per process.
///
/// `SecTrust` trusts these (plus any anchors the caller adds with `SecTrustSetAnchorCertificatesOnly(false)`)
/// unless the caller set anchors of its own. A missing or unreadable bundle means no system roots: every chain
/// that is not anchored by the caller then fails with `errSecNotTrusted`.
enum SystemTrustRoots {
    /// Where Debian (and Ubuntu, Alpine, Arch) keep the bundle; `update-ca-certificates` rewrites it.
    static let bundlePath = "/etc/ssl/certs/ca-certificates.crt"

    /// The bundle's certificates (Swift runs a `static let` initializer once, on first use, thread-safely).
    static let certificates: [Certificate] = load(from: bundlePath)

    /// `certificates` as swift-certificates' store (indexed by subject once, not per evaluation).
    static let store = CertificateStore(certificates)

    /// `certificates` as a set, to tell whether a certificate is one of them.
    static let set = Set(certificates)

    /// The certificates of the PEM bundle at `path`; blocks that do not parse as certificates are left out, so
    /// one odd entry does not drop the whole store.
    static func load(from path: String) -> [Certificate] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let documents = try? PEMDocument.parseMultiple(pemString: text)
        else { return [] }
        return documents.compactMap { try? Certificate(pemDocument: $0) }
    }
}
#endif
