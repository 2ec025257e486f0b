import Foundation

/// The OAuth client the app is registered as: its id, its secret if it is confidential, and how it
/// authenticates at the token endpoint.
///
/// ```swift
/// let mobileApp = OAuthClient(id: "ios-app")                                  // public client
/// let service = OAuthClient(id: "billing", secret: secret)                    // HTTP Basic
/// let legacy = OAuthClient(id: "billing", secret: secret, authentication: .post)
/// ```
///
/// The secret never prints.
public struct OAuthClient: Sendable, CustomStringConvertible {
    /// How a client proves its identity at the token, revocation and device endpoints (RFC 6749 §2.3).
    public enum Authentication: Sendable, Hashable {
        /// `Authorization: Basic` with the form-urlencoded id and secret (`client_secret_basic`, the
        /// default for confidential clients).
        case basic
        /// `client_id` and `client_secret` in the form body (`client_secret_post`).
        case post
        /// A public client: `client_id` in the form body, no secret.
        case none
    }

    /// The client id.
    public var id: String
    /// The client secret of a confidential client.
    public var secret: String?
    /// How the client authenticates.
    public var authentication: Authentication

    /// Makes a client.
    ///
    /// - Parameters:
    ///   - id: The client id.
    ///   - secret: The secret of a confidential client; `nil` for a public one.
    ///   - authentication: How to send the credentials; `nil` for `.basic` with a secret and `.none` without.
    public init(id: String, secret: String? = nil, authentication: Authentication? = nil) {
        self.id = id
        self.secret = secret
        self.authentication = authentication ?? (secret == nil ? .none : .basic)
    }

    /// The client's credentials added to a request's form fields and headers.
    func authenticate(fields: inout [(String, String)], headers: inout [(name: String, value: String)]) {
        switch authentication {
        case .basic:
            // RFC 6749 §2.3.1: each part is form-urlencoded before Base64.
            let pair = FormEncoding.encode(id) + ":" + FormEncoding.encode(secret ?? "")
            headers.append((name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString()))
        case .post:
            fields.append(("client_id", id))
            fields.append(("client_secret", secret ?? ""))
        case .none:
            fields.append(("client_id", id))
        }
    }

    /// The authentication method and whether a secret is set; never the id's secret.
    public var description: String {
        "OAuthClient(authentication: \(authentication), secret: \(secret == nil ? "none" : "redacted"))"
    }
}
