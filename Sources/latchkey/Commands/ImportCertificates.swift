import ArgumentParser
import Foundation
import Latchkey
import LatchkeySecurity

/// The options of `import` for certificate, key and PKCS#12 files (`security import`'s letters).
struct CertificateImportOptions: ParsableArguments {
    @Option(
        name: .customShort("f"),
        help: "Format: pkcs12 (p12, pfx), pem (pemseq, openssl) or der (x509, raw, pkcs8); default: detected."
    )
    var format: String?
    @Option(name: .customShort("t"), help: "Item type (cert, priv, agg): accepted for security's scripts, unused.")
    var type: String?
    @Option(
        name: .customShort("P"),
        help: "The PKCS#12 passphrase (visible in the process list; prefer LATCHKEY_IMPORT_PASSPHRASE or the prompt)."
    )
    var passphrase: String?

    func validate() throws {
        if let format, CertificateFiles.format(named: format) == nil {
            throw ValidationError("-f is pkcs12, pem or der (security's pemseq, openssl, x509, raw, pkcs8 too).")
        }
    }

    /// The PKCS#12 passphrase: `-P`, else `LATCHKEY_IMPORT_PASSPHRASE`, else a no-echo prompt on a terminal
    /// (`--passphrase-stdin` and `--passphrase-file` are read before this, by the caller).
    ///
    /// - Throws: `interactionNotAllowed` (-25308) when none is given and there is no terminal to ask on.
    func pkcs12Passphrase(for path: String) throws -> String {
        if let passphrase { return passphrase }
        if let value = ProcessInfo.processInfo.environment["LATCHKEY_IMPORT_PASSPHRASE"] { return value }
        guard Terminal.isInteractive else {
            throw KeychainError(
                .interactionNotAllowed,
                "\(path) is a PKCS#12 file and no passphrase was given: use -P or set LATCHKEY_IMPORT_PASSPHRASE."
            )
        }
        let secret = try Terminal.readSecret(prompt: "Passphrase for \(path): ")
        return String(decoding: secret.data, as: UTF8.self)
    }
}

extension Import {
    /// Imports the certificates and private keys of `file` (not an archive), as `security import` does.
    func importCertificates(_ file: Data) throws {
        let options = certificateOptions
        let chosen = options.format.flatMap(CertificateFiles.format(named:))
        let contents = try CertificateFiles.contents(
            file,
            format: chosen ?? CertificateFiles.detect(file, path: archive),
            passphrase: {
                let given = archivePassphrase
                guard options.passphrase == nil, given.passphraseStdin || given.passphraseFile != nil else {
                    return try options.pkcs12Passphrase(for: archive)
                }
                return String(decoding: try given.passphrase(confirm: false).data, as: UTF8.self)
            }
        )
        let service = try keychain.service(ifMissing: .createDefault)
        let items = contents.keys + contents.certificates
        let added: [FoundItem]
        switch try service.perform(.addAll(items, tolerateExisting: true)).storage {
        case .items(let found): added = found
        default: throw KeychainError(.internalComponent, "The keychain answered an import with something else.")
        }
        let labels = Set(contents.keys.compactMap { $0.attributes[.applicationLabel]?.dataValue })
        var identities = 0
        var certificates = 0
        var keys = 0
        for item in added {
            switch item.itemClass {
            case .certificate:
                if let hash = item.attributes[.publicKeyHash]?.dataValue, labels.contains(hash) {
                    identities += 1
                } else {
                    certificates += 1
                }
            case .key:
                let label = item.attributes[.applicationLabel]?.dataValue
                let paired = contents.certificates.contains { $0.attributes[.publicKeyHash]?.dataValue == label }
                if !paired { keys += 1 }
            default: break
            }
        }
        let existing = items.count - added.count
        if format.json {
            try JSONValue.object([
                "identities": .integer(Int64(identities)),
                "certificates": .integer(Int64(certificates)),
                "keys": .integer(Int64(keys)),
                "alreadyPresent": .integer(Int64(existing)),
            ]).print()
            return
        }
        var out = ""
        if identities > 0 { out += "\(identities) \(identities == 1 ? "identity" : "identities") imported.\n" }
        if certificates > 0 { out += "\(certificates) certificate\(certificates == 1 ? "" : "s") imported.\n" }
        if keys > 0 { out += "\(keys) key\(keys == 1 ? "" : "s") imported.\n" }
        if existing > 0 { out += "\(existing) item\(existing == 1 ? " was" : "s were") already in the keychain.\n" }
        ItemOutput.write(out)
    }
}
