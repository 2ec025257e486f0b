import AsyncHTTPClient
import Foundation

/// The default `TokenTransport`: AsyncHTTPClient, with redirects off, a per-request timeout and a
/// bounded response size. It has no cache, so token responses are never stored anywhere but the keychain.
///
/// ```swift
/// let manager = TokenManager(configuration: configuration, account: "alice", keychain: keychain,
///                            transport: AsyncHTTPClientTransport(timeout: .seconds(10)))
/// ```
///
/// Redirects are not followed: a token endpoint answers directly (RFC 6749 §3.2), and following a
/// redirect could carry a `Authorization` header or a form with secrets to another origin.
public struct AsyncHTTPClientTransport: TokenTransport {
    /// The client requests go through.
    public let client: HTTPClient
    /// The deadline of each request, from connecting to the last body byte.
    public let timeout: Duration
    /// The largest body accepted; a larger one fails the request (a token response is a few KB).
    public let maximumResponseBytes: Int

    /// Makes a transport.
    ///
    /// - Parameters:
    ///   - client: The client to use; `nil` for a process-wide client that follows no redirects and is
    ///     never shut down. A client you pass stays yours to shut down.
    ///   - timeout: The deadline of each request (default 30 s).
    ///   - maximumResponseBytes: The largest body accepted (default 1 MiB).
    public init(client: HTTPClient? = nil, timeout: Duration = .seconds(30), maximumResponseBytes: Int = 1 << 20) {
        self.client = client ?? Self.sharedClient
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// The process-wide client: no redirects, AsyncHTTPClient's singleton event loop group.
    private static let sharedClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow)
    )

    /// Sends `request` and collects the whole response.
    ///
    /// - Throws: AsyncHTTPClient's errors when no complete answer arrived (refused, dropped, timed out,
    ///   too large).
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        // NIO's types are reached through AsyncHTTPClient's API only (this target depends on it alone).
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body {
            outgoing.body = .bytes(Array(body))
        }
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let response = try await client.execute(outgoing, timeout: .milliseconds(max(1, milliseconds)))
        let buffer = try await response.body.collect(upTo: maximumResponseBytes)
        return TransportResponse(
            status: Int(response.status.code),
            headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: Data(buffer.readableBytesView)
        )
    }
}
