import Foundation

/// A started device authorization (RFC 8628 §3.2): what to show the user, and how to poll.
///
/// Show `verificationURI` and `userCode` (or `verificationURIComplete`, for example as a QR code), then
/// call `TokenManager.completeDeviceAuthorization(_:)`, which polls until the user approves or denies.
///
/// ```swift
/// let authorization = try await manager.startDeviceAuthorization(scope: "read")
/// print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
/// let tokens = try await manager.completeDeviceAuthorization(authorization)
/// ```
///
/// The device code is a credential: `description` shows only what the user is shown anyway.
public struct DeviceAuthorization: Sendable, CustomStringConvertible {
    /// The device code the client polls with (never shown to the user).
    public var deviceCode: String
    /// The code the user types at `verificationURI`.
    public var userCode: String
    /// Where the user goes to approve.
    public var verificationURI: URL
    /// The verification URI with the user code in it, if the server offers one.
    public var verificationURIComplete: URL?
    /// When the device code expires.
    public var expiresAt: Date
    /// The time to wait between polls (default 5 s when the server names none; `slow_down` adds 5 s).
    public var interval: Duration

    /// Makes a device authorization (normally from `TokenManager.startDeviceAuthorization(scope:)`).
    ///
    /// - Parameters:
    ///   - deviceCode: The device code.
    ///   - userCode: The user code.
    ///   - verificationURI: The verification URI.
    ///   - verificationURIComplete: The verification URI including the user code, if any.
    ///   - expiresAt: When the codes expire.
    ///   - interval: The polling interval.
    public init(
        deviceCode: String,
        userCode: String,
        verificationURI: URL,
        verificationURIComplete: URL? = nil,
        expiresAt: Date,
        interval: Duration = .seconds(5)
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
    }

    /// Parses the device authorization response (RFC 8628 §3.2).
    init(body: Data, receivedAt: Date) throws(TokenError) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let deviceCode = object["device_code"] as? String, !deviceCode.isEmpty,
            let userCode = object["user_code"] as? String,
            let uriText = (object["verification_uri"] as? String) ?? (object["verification_url"] as? String),
            let uri = URL(string: uriText),
            let expiresIn = TokenResponse.seconds(object["expires_in"])
        else {
            throw TokenError(
                .invalidResponse,
                "The device authorization answer lacks a required member.",
                httpStatus: 200
            )
        }
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = uri
        self.verificationURIComplete = (object["verification_uri_complete"] as? String).flatMap(URL.init(string:))
        self.expiresAt = receivedAt.addingTimeInterval(expiresIn)
        let seconds = TokenResponse.seconds(object["interval"]) ?? 5
        self.interval = .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The user code, the verification URI and the expiry; never the device code.
    public var description: String {
        "DeviceAuthorization(user code: \(userCode), verification URI: \(URLs.withoutQuery(verificationURI)), "
            + "expires \(expiresAt.formatted(.iso8601)), interval: \(interval))"
    }
}
