import Foundation
import Latchkey

/// The Secret Service layer's one error: a D-Bus error name and a message, sent back as the method's error
/// reply.
///
/// The names are the specification's (`org.freedesktop.Secret.Error.*`) where it has one, else the
/// standard `org.freedesktop.DBus.Error.*`. Messages never hold a secret or an attribute value.
public struct SecretServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, for example `org.freedesktop.Secret.Error.IsLocked`.
    public var name: String
    /// A human-readable message.
    public var message: String

    /// An error with a D-Bus name and a message.
    public init(name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// `org.freedesktop.Secret.Error.IsLocked`: the object must be unlocked first.
    public static func isLocked(_ message: String = "The keychain is locked: run `latchkey unlock`.") -> Self {
        Self(name: "org.freedesktop.Secret.Error.IsLocked", message)
    }

    /// `org.freedesktop.Secret.Error.NoSession`: the session does not exist.
    public static func noSession(_ message: String = "No such session.") -> Self {
        Self(name: "org.freedesktop.Secret.Error.NoSession", message)
    }

    /// `org.freedesktop.Secret.Error.NoSuchObject`: no such item or collection.
    public static func noSuchObject(_ message: String = "No such object.") -> Self {
        Self(name: "org.freedesktop.Secret.Error.NoSuchObject", message)
    }

    /// `org.freedesktop.DBus.Error.NotSupported`: a valid request this service does not implement (yet).
    public static func notSupported(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.NotSupported", message)
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`: arguments of the wrong type or value.
    public static func invalidArguments(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.InvalidArgs", message)
    }

    /// `org.freedesktop.DBus.Error.UnknownMethod`: no such method on the object.
    public static func unknownMethod(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.UnknownMethod", message)
    }

    /// `org.freedesktop.DBus.Error.Failed`: anything else (a keychain error, named by its OSStatus).
    public static func failed(_ message: String) -> Self {
        Self(name: "org.freedesktop.DBus.Error.Failed", message)
    }

    /// The error a keychain error becomes: a locked keychain is `IsLocked`, a missing item `NoSuchObject`,
    /// anything else `Failed` with the OSStatus.
    public init(_ error: KeychainError) {
        switch error.code {
        case .interactionNotAllowed, .interactionRequired:
            self = error.message.isEmpty ? .isLocked() : .isLocked(error.message)
        case .itemNotFound:
            self = .noSuchObject()
        default:
            self = .failed("Keychain error \(error.code.rawValue): \(error.message)")
        }
    }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }
}
