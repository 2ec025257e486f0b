import ArgumentParser
import Foundation
import Latchkey
import LatchkeySecurity

/// `add-certificates`: adds the certificates of PEM or DER files, as `security add-certificates`.
struct AddCertificates: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-certificates",
        abstract: "Add certificates (PEM, several per file, or DER) to a keychain.",
        discussion: """
            Each certificate is labelled with its subject's common name. A certificate already in the keychain \
            is named on stderr and the others are still added; the exit status is then 1 (-25299). Private \
            keys in the files are not added: use import.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Argument(help: "Certificate files, PEM or DER.") var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one certificate file.") }
    }

    func run() throws {
        try runReportingErrors {
            var certificates: [NewItem] = []
            for path in files {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw KeychainError(.param, "Cannot read \(path).")
                }
                let blocks = CertificateFiles.pemBlocks(data).filter { $0.label.hasSuffix("CERTIFICATE") }
                if blocks.isEmpty {
                    certificates.append(try ImportableItems.certificate(der: data))
                } else {
                    certificates += try blocks.map { try ImportableItems.certificate(der: $0.der) }
                }
            }
            try keychain.refuseIfMissing(.createDefault)
            let service = try keychain.service(ifMissing: .createDefault)
            var duplicate: KeychainError?
            for certificate in certificates {
                do {
                    _ = try service.perform(.add(certificate))
                } catch let error as KeychainError where error.code == .duplicateItem {
                    let name = certificate.attributes[.label]?.stringValue ?? "certificate"
                    warn("\"\(name)\": \(KeychainError.Code.duplicateItem.statusMessage)")
                    duplicate = error
                }
            }
            if duplicate != nil { throw ExitCode(ExitStatus.failure) }
        }
    }
}

/// `delete-certificate`: deletes one certificate by common name or SHA-1, as `security delete-certificate`.
struct DeleteCertificate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-certificate",
        abstract: "Delete a certificate (and with -t its private key).",
        discussion: """
            -c matches the subject's common name exactly; when several certificates match, none is deleted and \
            the command asks for -Z (OSStatus -25299, as `security` refuses an ambiguous name). -Z takes the \
            SHA-1 of the certificate in hex, as find-identity and find-certificate -Z print it. -t also deletes \
            the private key whose public key is the certificate's (the identity). Exits 44 when none matches.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("c"), help: "The certificate's common name.") var name: String?
    @Option(name: .customShort("Z"), help: "The certificate's SHA-1 hash, in hex.") var hash: String?
    @Flag(name: .customShort("t"), help: "Also delete the matching private key (the identity).") var identity = false

    func validate() throws {
        guard name != nil || hash != nil else { throw ValidationError("Give -c NAME or -Z SHA1.") }
    }

    func run() throws {
        try runReportingErrors {
            let service = try keychain.service()
            let all = try service.findAll(ItemQuery(.certificate, synchronizable: .any), withData: true)
            let matches = all.filter { item in
                guard let der = item.data?.data, let summary = ImportableItems.summary(der: der) else { return false }
                if let name, summary.name != name { return false }
                if let hash, summary.sha1 != hash.uppercased().replacingOccurrences(of: " ", with: "") {
                    return false
                }
                return true
            }
            guard let match = matches.first else {
                throw KeychainError(.itemNotFound, KeychainError.Code.itemNotFound.statusMessage)
            }
            guard matches.count == 1 else {
                throw KeychainError(
                    .duplicateItem,
                    "\(matches.count) certificates match: give -Z with the SHA-1 of the one to delete."
                )
            }
            var doomed = ItemQuery(.certificate, synchronizable: .any)
            doomed.persistentReference = match.persistentReference
            _ = try service.delete(doomed, limit: .one)
            if identity, let hash = match.attributes[.publicKeyHash] {
                var key = ItemQuery(.key, synchronizable: .any)
                key.attributes[.applicationLabel] = hash
                key.attributes[.keyClass] = .number(1)
                _ = try service.delete(key, limit: .all)
            }
        }
    }
}
