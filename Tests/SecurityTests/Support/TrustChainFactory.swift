#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// Certificate chains made by `openssl` in a temporary directory for the `SecTrust` tests: a root CA, an
/// intermediate CA and leaves, EC P-256, signed by `openssl ca` with exact validity dates.
///
/// ```swift
/// let factory = try TrustChainFactory()
/// defer { factory.remove() }
/// let root = try factory.root()
/// let intermediate = try factory.intermediate(signedBy: root)
/// let leaf = try factory.leaf(signedBy: intermediate, dnsName: "leaf.latchkey.test")
/// ```
final class TrustChainFactory {
    /// A certificate made here: its DER, its key file, and the `SecCertificate` parsed from the DER.
    struct Issued {
        /// The subject's common name.
        let name: String
        /// The key file (PEM), relative to the factory's directory.
        let keyFile: String
        /// The certificate file (PEM), relative to the factory's directory.
        let certificateFile: String
        /// The DER encoding.
        let der: Data
        /// The certificate.
        let certificate: SecCertificate
    }

    /// The temporary directory holding the keys, certificates and `openssl ca`'s database.
    let directory: URL
    private var counter = 0

    /// Makes the directory and `openssl ca`'s configuration and database.
    init() throws {
        directory = try makeTemporaryDirectory("sectrust")
        try Data(Self.configuration.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
        try Data().write(to: directory.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: directory.appendingPathComponent("serial"))
    }

    /// Removes the directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A root, an intermediate it signed and a leaf for `leaf.latchkey.test` the intermediate signed, each with
    /// the default names and validity (2020 to 2049).
    func chain() throws -> (root: Issued, intermediate: Issued, leaf: Issued) {
        let root = try root()
        let intermediate = try intermediate(signedBy: root)
        return (root, intermediate, try leaf(signedBy: intermediate))
    }

    /// A self-signed root CA.
    func root(
        name: String = "Latchkey Test Root",
        from notBefore: String = "20200101000000Z",
        to notAfter: String = "20491231235959Z"
    ) throws -> Issued {
        try issue(name: name, extensions: "root_ext", issuer: nil, notBefore: notBefore, notAfter: notAfter)
    }

    /// An intermediate CA signed by `issuer`.
    func intermediate(
        signedBy issuer: Issued,
        name: String = "Latchkey Test Intermediate",
        from notBefore: String = "20200101000000Z",
        to notAfter: String = "20491231235959Z"
    ) throws -> Issued {
        try issue(name: name, extensions: "intermediate_ext", issuer: issuer, notBefore: notBefore, notAfter: notAfter)
    }

    /// A TLS server leaf signed by `issuer`, valid for `dnsName` (subject alternative name and common name), or
    /// for `subjectAltName` (`openssl`'s syntax, e.g. `DNS:a.test, IP:127.0.0.1`) when given, with
    /// `extraExtensions` (lines of an `openssl` extension section) added.
    func leaf(
        signedBy issuer: Issued,
        dnsName: String = "leaf.latchkey.test",
        from notBefore: String = "20200101000000Z",
        to notAfter: String = "20491231235959Z",
        subjectAltName: String? = nil,
        extraExtensions: [String] = []
    ) throws -> Issued {
        let section = "leaf_ext_\(counter)"
        let extensions = """

            [ \(section) ]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = \(subjectAltName ?? "DNS:\(dnsName)")
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            \(extraExtensions.joined(separator: "\n"))

            """
        let configuration = directory.appendingPathComponent("ca.cnf")
        let handle = try FileHandle(forWritingTo: configuration)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(extensions.utf8))
        try handle.close()
        return try issue(name: dnsName, extensions: section, issuer: issuer, notBefore: notBefore, notAfter: notAfter)
    }

    /// The uncompressed EC public point of `issued`'s key, as `openssl pkey` exports it (the last 65 bytes of
    /// the P-256 SubjectPublicKeyInfo).
    func publicPoint(of issued: Issued) throws -> Data {
        let output = "pub-\(issued.keyFile).der"
        try run(["openssl", "pkey", "-in", issued.keyFile, "-pubout", "-outform", "DER", "-out", output])
        return try Data(contentsOf: directory.appendingPathComponent(output)).suffix(65)
    }

    private func issue(
        name: String,
        extensions: String,
        issuer: Issued?,
        notBefore: String,
        notAfter: String
    ) throws -> Issued {
        counter += 1
        let base = "cert\(counter)"
        try run([
            "openssl", "req", "-new", "-config", "ca.cnf", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "\(base).key", "-out", "\(base).csr", "-subj", "/CN=\(name)",
        ])
        var signing = [
            "openssl", "ca", "-batch", "-config", "ca.cnf", "-in", "\(base).csr", "-out", "\(base).pem", "-notext",
            "-startdate", notBefore, "-enddate", notAfter, "-extensions", extensions,
        ]
        if let issuer {
            signing += ["-cert", issuer.certificateFile, "-keyfile", issuer.keyFile]
        } else {
            signing += ["-selfsign", "-keyfile", "\(base).key"]
        }
        try run(signing)
        let pem = try String(contentsOf: directory.appendingPathComponent("\(base).pem"), encoding: .utf8)
        let der = try #require(TrustPEM.der(pem).first, "openssl wrote no certificate for \(name)")
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData), "\(name) does not parse")
        return Issued(
            name: name,
            keyFile: "\(base).key",
            certificateFile: "\(base).pem",
            der: der,
            certificate: certificate
        )
    }

    private func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try runTool(arguments, in: directory, sourceLocation: sourceLocation)
        try #require(status == 0, "\(arguments.joined(separator: " ")) exited with \(status)")
    }

    /// `openssl ca`'s configuration: any subject, no extensions copied from requests, and the CA profiles.
    private static let configuration = """
        [ ca ]
        default_ca = test_ca

        [ test_ca ]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = any_subject
        unique_subject = no
        copy_extensions = none

        [ any_subject ]
        commonName = supplied

        [ req ]
        distinguished_name = dn
        prompt = no

        [ dn ]
        CN = unused

        [ root_ext ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash

        [ intermediate_ext ]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """
}

/// PEM text to DER.
enum TrustPEM {
    /// The DER of every `CERTIFICATE` block in `pem`, in order.
    static func der(_ pem: String) -> [Data] {
        var blocks: [Data] = []
        var body: String?
        for line in pem.split(whereSeparator: \.isNewline).map(String.init) {
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let text = body, let data = Data(base64Encoded: text) { blocks.append(data) }
                body = nil
            } else if body != nil {
                body? += line.trimmingCharacters(in: .whitespaces)
            }
        }
        return blocks
    }
}
#endif
