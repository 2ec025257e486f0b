import ArgumentParser
import Foundation
import Latchkey
import LatchkeySecurity

/// `find-identity`: identities (a certificate with its private key), as `security find-identity`.
struct FindIdentity: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-identity",
        abstract: "List identities: certificates whose private key is in the keychain.",
        discussion: """
            Prints `  1) <SHA-1 of the certificate> "<common name>"` per identity and `     N identities found`, \
            then the valid ones; -v prints only the valid ones (`     N valid identities found`). Valid means \
            within the certificate's validity period: Latchkey does not evaluate trust or revocation here \
            (use SecTrust), unlike `security`. -p names the policy shown in the `Policy:` line (basic, \
            ssl-client, ssl-server, smime, codesigning, eap, ipsec); it does not filter. -s keeps the \
            identities whose common name contains the string.
            """
    )

    /// `security`'s policy names and the titles it prints for them.
    static let policies: [String: String] = [
        "basic": "X.509 Basic", "ssl-client": "SSL client", "ssl-server": "SSL server", "smime": "S/MIME",
        "codesigning": "Code Signing", "eap": "EAP", "ipsec": "IPSec",
    ]

    @OptionGroup var keychain: KeychainOptions
    @Flag(name: .customShort("v"), help: "Show valid identities only.") var validOnly = false
    @Option(name: .customShort("p"), help: "Policy: basic (default), ssl-client, ssl-server, smime, codesigning, …")
    var policy: String = "basic"
    @Option(name: .customShort("s"), help: "Keep identities whose common name contains this string.")
    var string: String?

    func validate() throws {
        guard Self.policies[policy] != nil else {
            throw ValidationError("Unknown policy '\(policy)': \(Self.policies.keys.sorted().joined(separator: ", ")).")
        }
    }

    func run() throws {
        try runReportingErrors {
            let service = try keychain.service()
            let found = try service.findAll(ItemQuery(.identity, synchronizable: .any))
            var seen: Set<String> = []
            let identities = found.compactMap { item -> ImportableItems.CertificateSummary? in
                guard let der = item.attributes[.identityCertificate]?.dataValue,
                    let summary = ImportableItems.summary(der: der), seen.insert(summary.sha1).inserted
                else { return nil }
                if let string, !(summary.name ?? "").contains(string) { return nil }
                return summary
            }
            let valid = identities.filter(\.isWithinValidityPeriod)
            var out = ""
            if !validOnly {
                out += "\nPolicy: \(Self.policies[policy] ?? policy)\n  Matching identities\n"
                out += Self.list(identities)
                out += "     \(identities.count) identities found\n\n  Valid identities only\n"
            }
            out += Self.list(valid)
            out += "     \(valid.count) valid identities found\n"
            ItemOutput.write(out)
        }
    }

    static func list(_ identities: [ImportableItems.CertificateSummary]) -> String {
        identities.enumerated().map { "  \($0.offset + 1)) \($0.element.sha1) \"\($0.element.name ?? "")\"\n" }
            .joined()
    }
}
