import Foundation
import Latchkey
import PostgresNIO

/// A PostgreSQL connection URL, as `psql` takes it, turned into a client's and a single connection's
/// configuration.
///
/// `postgresql://user:password@host:port/database`, or `postgres://`; a Unix socket by the `host` query
/// parameter naming its directory (`postgresql://user@/database?host=/run/postgresql`). `sslmode=disable`
/// turns TLS off (the default asks for it only over TCP: `prefer`), `sslmode=require` demands it.
enum SyncDatabaseURL {
    /// The client configuration of `text`.
    ///
    /// - Throws: `KeychainError.Code.param` naming what is wrong with the URL (never echoing its password).
    static func configuration(_ text: String) throws(KeychainError) -> PostgresClient.Configuration {
        let address = try parse(text)
        if let socket = address.socket {
            return PostgresClient.Configuration(
                unixSocketPath: socket,
                username: address.username,
                password: address.password,
                database: address.database
            )
        }
        return PostgresClient.Configuration(
            host: address.host,
            port: address.port,
            username: address.username,
            password: address.password,
            database: address.database,
            tls: address.tls.client
        )
    }

    /// The configuration of one connection to the database of `text` (the reachability check).
    static func connectionConfiguration(_ text: String) throws(KeychainError) -> PostgresConnection.Configuration {
        let address = try parse(text)
        if let socket = address.socket {
            return PostgresConnection.Configuration(
                unixSocketPath: socket,
                username: address.username,
                password: address.password,
                database: address.database
            )
        }
        return PostgresConnection.Configuration(
            host: address.host,
            port: address.port,
            username: address.username,
            password: address.password,
            database: address.database,
            tls: try address.tls.connection()
        )
    }

    /// Where a URL points.
    private struct Address {
        var socket: String?
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String
        var tls: TLSMode
    }

    /// `sslmode`: off, when the server offers it, or required.
    private enum TLSMode {
        case disable, prefer, require

        var client: PostgresClient.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        }

        func connection() throws(KeychainError) -> PostgresConnection.Configuration.TLS {
            do {
                switch self {
                case .disable: return .disable
                case .prefer: return .prefer(try .init(configuration: .makeClientConfiguration()))
                case .require: return .require(try .init(configuration: .makeClientConfiguration()))
                }
            } catch {
                throw KeychainError(.notAvailable, "TLS to the sync database could not be set up: \(error).")
            }
        }
    }

    /// The parts of `text`.
    private static func parse(_ text: String) throws(KeychainError) -> Address {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw KeychainError(
                .param,
                "The sync database URL \(redacted(text)) is not a PostgreSQL URL; write "
                    + "postgresql://user:password@host:port/database (or ?host=/socket/directory)."
            )
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { _, last in last }
        )
        let username = components.user.map { $0.removingPercentEncoding ?? $0 } ?? query["user"] ?? "postgres"
        let password = components.password.map { $0.removingPercentEncoding ?? $0 } ?? query["password"]
        var database = String(components.path.drop { $0 == "/" })
        if database.isEmpty { database = query["dbname"] ?? username }
        let port = components.port ?? query["port"].flatMap(Int.init) ?? 5432
        let socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let socketDirectory {
            return Address(
                socket: socketDirectory + "/.s.PGSQL.\(port)",
                host: "",
                port: port,
                username: username,
                password: password,
                database: database,
                tls: .disable
            )
        }
        guard let host = components.host.flatMap({ $0.isEmpty ? nil : $0 }) ?? query["host"] else {
            throw KeychainError(.param, "The sync database URL \(redacted(text)) names no host or socket directory.")
        }
        let tls: TLSMode
        switch query["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "require", "verify-ca", "verify-full": tls = .require
        default: tls = .prefer
        }
        return Address(
            socket: nil,
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: tls
        )
    }

    /// `text` with its password replaced by `***` (for status output and errors).
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "the sync database URL"
    }
}
