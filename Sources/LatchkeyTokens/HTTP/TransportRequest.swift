import Foundation

/// An HTTP request as a `TokenTransport` sends it: method, URL, headers and an optional body.
///
/// Used both for the token manager's own calls (token, revocation, device and metadata endpoints) and
/// for the app's API calls through `TokenManager.send(_:)`, which adds the `Authorization` header.
///
/// `description` shows the method and the URL without its query; never headers or the body, which
/// carry tokens and passwords.
public struct TransportRequest: Sendable, CustomStringConvertible {
    /// The HTTP method, for example `"GET"` or `"POST"`.
    public var method: String
    /// The full URL.
    public var url: URL
    /// The header fields in order; names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// Makes a request.
    ///
    /// - Parameters:
    ///   - method: The HTTP method (default `"GET"`).
    ///   - url: The URL.
    ///   - headers: Header fields (default none).
    ///   - body: The body (default none).
    public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets the header `name`, replacing every earlier field of that name.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name: name, value: value))
    }

    /// A form POST (`application/x-www-form-urlencoded`, RFC 6749 Appendix B) of `fields`.
    static func form(
        _ url: URL,
        _ fields: [(String, String)],
        headers: [(name: String, value: String)] = []
    ) -> TransportRequest {
        var request = TransportRequest(
            method: "POST",
            url: url,
            headers: headers,
            body: Data(FormEncoding.encode(fields).utf8)
        )
        request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        request.setHeader("Accept", "application/json")
        request.setHeader("Cache-Control", "no-store")
        return request
    }

    /// `"<METHOD> <scheme://host:port/path>"`: no query, headers or body.
    public var description: String {
        "\(method) \(URLs.withoutQuery(url))"
    }
}

/// An HTTP response as a `TokenTransport` returns it.
///
/// `description` shows the status and the body's size, never the body (token responses carry tokens).
public struct TransportResponse: Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int
    /// The header fields in order; names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// Makes a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Header fields.
    ///   - body: The body.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header `name` (case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// `"HTTP <status> (<n> bytes)"`.
    public var description: String { "HTTP \(status) (\(body.count) bytes)" }
}

/// Sends HTTP requests for the token manager: the one seam between OAuth logic and the network.
///
/// The default, `AsyncHTTPClientTransport`, uses AsyncHTTPClient. Tests and apps with their own HTTP
/// stack conform their own type. A transport must not cache responses, must not follow redirects for
/// requests that carry credentials to another origin, and must not log headers or bodies.
///
/// ```swift
/// struct MyTransport: TokenTransport {
///     func send(_ request: TransportRequest) async throws -> TransportResponse { ... }
/// }
/// ```
public protocol TokenTransport: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    ///
    /// - Throws: Only when no answer arrived (connection refused or dropped, timeout, TLS failure):
    ///   the token manager reports these as `TokenError.Code.network` and keeps the tokens.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// URL helpers.
enum URLs {
    /// `scheme://host[:port]/path`, without user, query or fragment.
    static func withoutQuery(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(URL)" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "(URL)"
    }
}
