import ArgumentParser
import Foundation
import Latchkey

/// `git-credential get|store|erase`: git's credential-helper protocol over internet-password items.
///
/// Credentials are stored as git-credential-osxkeychain stores them on a Mac: server = host, port, protocol
/// (Apple's code, `https` → `htps`), path (only when git sends one), account = username, and the password as
/// the secret, followed by `password_expiry_utc=` and `oauth_refresh_token=` lines when git gives them.
struct GitCredential: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper: git config --global credential.helper '!latchkey git-credential'.",
        discussion: """
            Matching is exact on protocol, host and port, on username when git sends one, and on path when git \
            sends one (credential.useHttpPath). store overwrites; erase removes every match, except items \
            whose password differs from a password the erase carries. Unknown operations and attributes are \
            ignored. The keychain is unlocked from the environment, else by a prompt on the terminal \
            (/dev/tty) unless GIT_TERMINAL_PROMPT=0; without either, the helper fails at once.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Argument(help: "get, store or erase (anything else is ignored).") var operation: String

    func run() throws {
        guard ["get", "store", "erase"].contains(operation) else { return }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let request: GitCredentialRequest
        do {
            request = try GitCredentialRequest.parse(input)
        } catch {
            warn("git-credential: the request is malformed (NUL byte, invalid UTF-8 or overlong line); ignored.")
            throw ExitCode(ExitStatus.failure)
        }
        guard let scheme = request.protocol, !scheme.isEmpty else { return }
        let (host, port) = request.hostAndPort ?? ("", 0)
        var key: [AttributeName: AttributeValue] = [
            .protocol: .string(Self.protocolCode(scheme)),
            .server: .string(host),
            .port: .number(port),
        ]
        if let path = request.path { key[.path] = .string(path) }
        try runReportingErrors {
            if operation != "store" && !FileManager.default.fileExists(atPath: keychain.path) { return }
            let prompt = ProcessInfo.processInfo.environment["GIT_TERMINAL_PROMPT"] != "0"
            let store = try keychain.service(
                unlock: prompt,
                promptOnControllingTerminal: true,
                ifMissing: operation == "store" ? .createDefault : .refuse
            )
            KeptOpen.service = store  // git runs a helper per request: keep the WAL open.
            switch operation {
            case "get": try get(store, key: key, request: request)
            case "store": try save(store, key: key, request: request)
            default: try erase(store, key: key, request: request)
            }
        }
    }

    private func matches(
        _ store: any KeychainService,
        key: [AttributeName: AttributeValue],
        username: String?,
        withData: Bool
    )
        throws -> [FoundItem]
    {
        var attributes = key
        if let username { attributes[.account] = .string(username) }
        return try ignoringNotFound {
            try store.find(ItemQuery(.internetPassword, attributes: attributes), limit: .all, withData: withData)
        } ?? []
    }

    private func get(
        _ store: any KeychainService,
        key: [AttributeName: AttributeValue],
        request: GitCredentialRequest
    ) throws {
        guard let item = try matches(store, key: key, username: request.username, withData: true).first else { return }
        let secret = GitStoredSecret(decoding: item.data?.utf8String ?? "")
        var out = "username=\(item.attributes[.account]?.stringValue ?? "")\n"
        out += "password=\(secret.password)\n"
        if let expiry = secret.passwordExpiryUTC { out += "password_expiry_utc=\(expiry)\n" }
        if let token = secret.oauthRefreshToken { out += "oauth_refresh_token=\(token)\n" }
        ItemOutput.write(out)
    }

    private func save(
        _ store: any KeychainService,
        key: [AttributeName: AttributeValue],
        request: GitCredentialRequest
    ) throws {
        guard let password = request.password, !request.isEphemeral else { return }
        let secret = GitStoredSecret(
            password: password,
            passwordExpiryUTC: request.passwordExpiryUTC,
            oauthRefreshToken: request.oauthRefreshToken
        )
        var attributes = key
        attributes[.account] = .string(request.username ?? "")
        attributes[.path] = key[.path] ?? .string("")
        attributes[.label] = .string(request.fields["host"] ?? "")
        attributes[.comment] = .string("git credential")
        try store.addOrUpdate(
            .internetPassword,
            attributes: attributes,
            data: SecretData(string: secret.encoded),
            update: true
        )
    }

    private func erase(
        _ store: any KeychainService,
        key: [AttributeName: AttributeValue],
        request: GitCredentialRequest
    ) throws {
        let candidates = try matches(store, key: key, username: request.username, withData: request.password != nil)
        for item in candidates {
            if let password = request.password {
                let stored = GitStoredSecret(decoding: item.data?.utf8String ?? "")
                guard stored.password == password else { continue }
            }
            _ = try ignoringNotFound { try store.delete(ItemQuery(nil, persistentReference: item.persistentReference)) }
        }
    }

    /// Apple's protocol code for a URL scheme (`https` → `htps`); a scheme without one is stored as
    /// `git:<scheme>` when it could be mistaken for a code, so no two schemes share a stored value.
    static func protocolCode(_ scheme: String) -> String {
        if let code = FourCharCodes.protocols[scheme] { return code }
        if Set(FourCharCodes.protocols.values).contains(scheme) || scheme.contains(":") { return "git:" + scheme }
        return scheme
    }
}
