import Foundation

/// Where keychain files and the per-machine device secret live by default.
public enum KeychainLocation {
    /// The default keychain file: `$LATCHKEY_KEYCHAIN`, else `$XDG_DATA_HOME/latchkey/login.keychain-db`,
    /// else `~/.local/share/latchkey/login.keychain-db`.
    public static func defaultKeychainPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let explicit = environment["LATCHKEY_KEYCHAIN"], !explicit.isEmpty { return explicit }
        return dataDirectory(environment: environment) + "/login.keychain-db"
    }

    /// `$XDG_DATA_HOME/latchkey`, else `~/.local/share/latchkey`.
    public static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdg("XDG_DATA_HOME", fallback: ".local/share", environment: environment) + "/latchkey"
    }

    /// The device secret: `$LATCHKEY_DEVICE_SECRET`, else `$XDG_STATE_HOME/latchkey/device-secret`, else
    /// `~/.local/state/latchkey/device-secret`. It is kept apart from keychain files so that a copied
    /// keychain cannot open its ThisDeviceOnly items elsewhere.
    public static func defaultDeviceSecretPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let explicit = environment["LATCHKEY_DEVICE_SECRET"], !explicit.isEmpty { return explicit }
        return xdg("XDG_STATE_HOME", fallback: ".local/state", environment: environment) + "/latchkey/device-secret"
    }

    /// Resolves a keychain name the way `security` does: a path with a slash is used as is; a bare name
    /// is looked up in the data directory, with `.keychain-db` appended when it has no extension.
    public static func resolve(
        _ name: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> String
    {
        if name.contains("/") { return name }
        let file = name.contains(".") ? name : name + ".keychain-db"
        return dataDirectory(environment: environment) + "/" + file
    }

    private static func xdg(_ variable: String, fallback: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + fallback
    }
}
