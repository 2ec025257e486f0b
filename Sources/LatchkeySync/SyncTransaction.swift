import Logging
import PostgresNIO

/// One transaction on a leased connection, its errors mapped to `SyncError`.
///
/// `BEGIN`, the body, `COMMIT`; when the body throws, `ROLLBACK` and the body's error. A failed rollback is
/// logged (the connection is then discarded by the pool) and the body's error still thrown.
enum SyncTransaction {
    /// Runs `body` in a transaction on a connection of `client`.
    static func run<Result: Sendable>(
        _ client: PostgresClient,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws(SyncError) -> Result {
        do {
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    do {
                        try await connection.query("ROLLBACK", logger: logger)
                    } catch let rollback {
                        logger.error(
                            "sync transaction rollback failed",
                            metadata: ["error": "\(SyncTransaction.describe(rollback))"]
                        )
                    }
                    throw error
                }
            }
        } catch {
            throw map(error)
        }
    }

    /// `error` as the layer's error: a `SyncError` stays, a PostgreSQL error keeps its SQLSTATE and message.
    static func map(_ error: any Error) -> SyncError {
        if let error = error as? SyncError { return error }
        return .server(describe(error))
    }

    /// What a user may read of `error`: PostgreSQL's SQLSTATE and message, or the client's error code;
    /// never the query or its bound values.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(type(of: error))" }
        if let info = error.serverInfo {
            return "PostgreSQL error \(info[.sqlState] ?? "?"): \(info[.message] ?? "no message")"
        }
        return "PostgreSQL client error \(error.code)"
    }
}
