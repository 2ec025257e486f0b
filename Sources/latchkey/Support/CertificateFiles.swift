import Foundation
import Latchkey
import LatchkeySecurity

/// Reads the files `import` and `add-certificates` take: PEM (several blocks), DER and PKCS#12, into the core's
/// typed items (through `ImportableItems`, which derives the attributes `SecItemAdd` would).
enum CertificateFiles {
    /// One PEM block: its label (`CERTIFICATE`, `PRIVATE KEY`, …) and decoded bytes.
    struct PEMBlock {
        let label: String
        let der: Data
    }

    /// The file formats `import -f` names.
    enum Format: String, CaseIterable {
        case pem, der, pkcs12
    }

    /// The `-f` value as a format: `security`'s names (`pkcs12`, `pemseq`, `openssl`, `x509`, `raw`, `pkcs8`) and
    /// Latchkey's (`pem`, `der`, `p12`, `pfx`); `nil` for any other.
    static func format(named name: String) -> Format? {
        switch name.lowercased() {
        case "pkcs12", "p12", "pfx": .pkcs12
        case "pem", "pemseq", "openssl": .pem
        case "der", "x509", "raw", "pkcs8": .der
        default: nil
        }
    }

    /// The PEM blocks of `data`, in order; empty when it holds none.
    static func pemBlocks(_ data: Data) -> [PEMBlock] {
        guard let text = String(data: data, encoding: .utf8) else { return [] }
        var blocks: [PEMBlock] = []
        var label: String?
        var body = ""
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5))
                body = ""
            } else if line.hasPrefix("-----END "), let current = label {
                if let der = Data(base64Encoded: body) { blocks.append(PEMBlock(label: current, der: der)) }
                label = nil
            } else if label != nil, !line.contains(":") {
                body += line
            }
        }
        return blocks
    }

    /// The format of `data` named by `path`'s extension, else guessed from the bytes: PEM when it holds a PEM
    /// block, PKCS#12 when it is DER whose first element is the version 3, else DER.
    static func detect(_ data: Data, path: String) -> Format {
        switch (path as NSString).pathExtension.lowercased() {
        case "p12", "pfx": return .pkcs12
        default: break
        }
        if !pemBlocks(data).isEmpty { return .pem }
        // PFX ::= SEQUENCE { version INTEGER (3), ... }: after the outer header, 02 01 03.
        let bytes = [UInt8](data.prefix(8))
        if bytes.count >= 5, bytes[0] == 0x30 {
            let headerLength = bytes[1] < 0x80 ? 2 : 2 + Int(bytes[1] & 0x7F)
            if bytes.count >= headerLength + 3, bytes[headerLength] == 0x02, bytes[headerLength + 1] == 0x01,
                bytes[headerLength + 2] == 0x03
            {
                return .pkcs12
            }
        }
        return .der
    }

    /// The items of one file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - format: The format (`detect` when not given with `-f`).
    ///   - passphrase: Asked only for a PKCS#12 file.
    /// - Throws: `decode` (-26275) for content that is none of these, `authFailed` (-25293) for a wrong PKCS#12
    ///   passphrase.
    static func contents(
        _ data: Data,
        format: Format,
        passphrase: () throws -> String
    ) throws -> ImportableItems.Contents {
        switch format {
        case .pkcs12:
            return try ImportableItems.pkcs12(data, passphrase: try passphrase())
        case .pem:
            var contents = ImportableItems.Contents()
            for block in pemBlocks(data) {
                switch block.label {
                case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE":
                    contents.certificates.append(try ImportableItems.certificate(der: block.der))
                case "PRIVATE KEY":
                    contents.keys.append(try ImportableItems.privateKey(pkcs8: block.der))
                case "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
                    throw KeychainError(
                        .decode,
                        "A \(block.label) block is not read: convert it to an unencrypted PKCS#8 PRIVATE KEY "
                            + "(openssl pkcs8 -topk8 -nocrypt) or a PKCS#12 file."
                    )
                default:
                    continue
                }
            }
            guard !contents.certificates.isEmpty || !contents.keys.isEmpty else {
                throw KeychainError(.decode, "The file holds no certificate or private key in PEM.")
            }
            return contents
        case .der:
            if let certificate = try? ImportableItems.certificate(der: data) {
                var contents = ImportableItems.Contents()
                contents.certificates.append(certificate)
                return contents
            }
            var contents = ImportableItems.Contents()
            contents.keys.append(try ImportableItems.privateKey(pkcs8: data))
            return contents
        }
    }
}
