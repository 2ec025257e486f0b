import Foundation
import GRDB
import GRDBSQLite

/// A read-only SQLite connection kept open beside GRDB's pool for point reads, with its statements
/// prepared once.
///
/// A read through `DatabasePool.read` checks a reader out of the pool, hops onto its dispatch queue,
/// prepares `BEGIN`/`COMMIT` anew and compares the schema version, which together cost more than the
/// lookup itself. This connection runs the same read transaction with cached statements and no hop.
/// It is not thread-safe: `DirectReads` hands it to one thread at a time.
final class ReadConnection {
    let handle: OpaquePointer
    private var statements: [StatementKey: OpaquePointer] = [:]
    /// Statements kept at most; past it the cache starts again (query shapes are few in practice).
    static let statementCapacity = 256
    private let begin: OpaquePointer
    private let commit: OpaquePointer

    /// Opens `path` read-only (SQLite's multi-thread mode: the caller serialises access).
    ///
    /// - Throws: `DatabaseError` when SQLite cannot open the file or prepare the transaction statements.
    init(path: String, busyTimeout: TimeInterval) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &connection, flags, nil)
        guard opened == SQLITE_OK, let connection else {
            let error = DatabaseError(resultCode: ResultCode(rawValue: opened), message: "cannot open \(path)")
            sqlite3_close(connection)
            throw error
        }
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, Int32(clamping: Int((busyTimeout * 1000).rounded())))
        do {
            begin = try Self.prepare(connection, "BEGIN DEFERRED")
        } catch {
            sqlite3_close(connection)
            throw error
        }
        do {
            commit = try Self.prepare(connection, "COMMIT")
        } catch {
            sqlite3_finalize(begin)
            sqlite3_close(connection)
            throw error
        }
        handle = connection
    }

    /// Whether `close()` ran.
    private var closed = false

    /// Finalises every statement and closes the connection; it must not be used afterwards. Running it again
    /// does nothing.
    func close() {
        guard !closed else { return }
        closed = true
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_finalize(begin)
        sqlite3_finalize(commit)
        sqlite3_close(handle)
    }

    // A store released without `close()` (a short-lived `KeychainStore`) used to leave this connection, and
    // the keychain's file, WAL and shared-memory descriptors, open until the process exited: 2 600 of them
    // by the end of the test suite.
    deinit { close() }

    /// The prepared statement named by `key`, prepared from `sql()` on first use and kept.
    func statement(_ key: StatementKey, sql: () -> String) throws -> OpaquePointer {
        if let statement = statements[key] { return statement }
        if statements.count >= Self.statementCapacity {
            for statement in statements.values { sqlite3_finalize(statement) }
            statements.removeAll()
        }
        let statement = try Self.prepare(handle, sql(), persistent: true)
        statements[key] = statement
        return statement
    }

    /// Runs `body`, which calls `startBudget()` before it steps its statement; returns `nil` when the
    /// statement ran past `instructions` SQLite virtual-machine instructions and was interrupted.
    ///
    /// An interrupted `SELECT` leaves the read transaction open and unchanged.
    func withinBudget<T>(_ instructions: Int32, _ body: () throws -> T) throws -> T? {
        budget = instructions
        defer {
            budget = 0
            sqlite3_progress_handler(handle, 0, nil, nil)
        }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            return nil
        }
    }

    /// Installs the budget of `withinBudget` (the first progress callback interrupts the statement); the
    /// caller first zeroes its statement's instruction count (`SQLiteQuery.resetInstructionCount`).
    func startBudget() {
        guard budget > 0 else { return }
        sqlite3_progress_handler(handle, budget, { _ in 1 }, nil)
    }

    /// The instruction budget of the `withinBudget` call in progress, 0 outside one.
    private var budget: Int32 = 0

    /// Runs `body` in one read transaction (a consistent snapshot); the transaction ends whether or not
    /// `body` throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try Self.run(begin, "BEGIN DEFERRED")
        let result: T
        do {
            result = try body()
        } catch {
            // A read transaction has nothing to roll back; COMMIT only releases the snapshot.
            _ = try? Self.run(commit, "COMMIT")
            throw error
        }
        try Self.run(commit, "COMMIT")
        return result
    }

    private static func run(_ statement: OpaquePointer, _ sql: String) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else { throw SQLiteCall.error(code, statement: statement) }
    }

    private static func prepare(
        _ connection: OpaquePointer,
        _ sql: String,
        persistent: Bool = false
    ) throws
        -> OpaquePointer
    {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(connection))
            )
        }
        return statement
    }
}

/// What names a statement in `ReadConnection`'s cache: its text, or for the item reads (built on every
/// lookup) their shape, which is cheaper to hash than to format.
enum StatementKey: Hashable {
    case sql(String)
    case select(SelectKey)
    case selectSignature(UInt64)
    case probe(ItemTable, String, Int)
    /// The count of one search tag's rows (`StorageReader.orderingTags`).
    case tagProbe
}

/// The dedicated read connection of one `StorageFile`, lent to one thread at a time.
///
/// The connection is opened on the first read (after the file has been validated and migrated). A thread
/// that finds it busy (another thread is reading) or absent (it could not be opened, or the file is
/// closed) gets `nil` and reads through GRDB's pool instead, so concurrent readers never wait for each
/// other here.
final class DirectReads: @unchecked Sendable {
    private enum State {
        case unopened
        case open(ReadConnection)
        case unavailable
    }

    // SAFETY: `state` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var state = State.unopened
    private let path: String
    private let busyTimeout: TimeInterval

    init(path: String, busyTimeout: TimeInterval) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    /// Runs `body` in a read transaction on the dedicated connection, or returns `nil` without running
    /// it when the connection is busy or unavailable.
    func read<T>(compositeIndexes: Bool, _ body: (StorageReader) throws -> T) throws -> T? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        let connection: ReadConnection
        switch state {
        case .open(let open): connection = open
        case .unavailable: return nil
        case .unopened:
            guard let opened = Self.open(path: path, busyTimeout: busyTimeout) else {
                state = .unavailable
                return nil
            }
            state = .open(opened)
            connection = opened
        }
        return .some(
            try connection.transaction {
                try body(StorageReader(connection: connection, compositeIndexes: compositeIndexes))
            }
        )
    }

    /// Opens the connection and proves that it can read the file; `nil` on any failure.
    private static func open(path: String, busyTimeout: TimeInterval) -> ReadConnection? {
        guard let connection = try? ReadConnection(path: path, busyTimeout: busyTimeout) else { return nil }
        do {
            // A read-only connection may open yet be unable to read (for instance when it cannot use the
            // WAL index): such a file keeps the pool path.
            _ = try connection.transaction { try StorageReader(connection: connection).changeCounter() }
            return connection
        } catch {
            connection.close()
            return nil
        }
    }

    /// Closes the connection (waiting for a read in progress); later reads use the pool.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        if case .open(let connection) = state { connection.close() }
        state = .unavailable
    }
}

/// Helpers for calling SQLite directly on a prepared statement (GRDB's or `ReadConnection`'s).
enum SQLiteCall {
    /// The error for result `code` of `statement`, as GRDB would report it (so `StorageError.map` maps it).
    static func error(_ code: Int32, statement: OpaquePointer) -> DatabaseError {
        let connection = sqlite3_db_handle(statement)
        let message = connection.map { String(cString: sqlite3_errmsg($0)) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
    }

    /// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the bind call returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// One execution of a prepared statement: parameters bound in order, rows stepped, and the statement
/// reset with its bindings cleared when the value goes away (so the next user, GRDB included, finds it
/// idle).
struct SQLiteQuery: ~Copyable {
    private let statement: OpaquePointer
    private var parameter: Int32 = 0
    /// Whether the bindings are cleared at the end (GRDB's statements, which GRDB may run again); the
    /// dedicated connection's statements are only ever run with every parameter bound anew.
    private let clearsBindings: Bool

    init(_ statement: OpaquePointer, clearsBindings: Bool = true) {
        self.statement = statement
        self.clearsBindings = clearsBindings
    }

    deinit {
        sqlite3_reset(statement)
        if clearsBindings { sqlite3_clear_bindings(statement) }
    }

    /// Binds the next parameter to `bytes` as a blob (an empty blob, never NULL, for no bytes).
    mutating func bind(_ bytes: Data) throws {
        parameter += 1
        let index = parameter
        let code = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                return sqlite3_bind_zeroblob(statement, index, 0)
            }
            return sqlite3_bind_blob(statement, index, base, Int32(buffer.count), SQLiteCall.transient)
        }
        guard code == SQLITE_OK else { throw SQLiteCall.error(code, statement: statement) }
    }

    /// Binds the next parameter to `bytes` as a blob, or to NULL for `nil`.
    mutating func bind(optional bytes: UnsafeRawBufferPointer?) throws {
        guard let bytes else {
            parameter += 1
            let code = sqlite3_bind_null(statement, parameter)
            guard code == SQLITE_OK else { throw SQLiteCall.error(code, statement: statement) }
            return
        }
        parameter += 1
        let index = parameter
        let code =
            if let base = bytes.baseAddress, !bytes.isEmpty {
                sqlite3_bind_blob(statement, index, base, Int32(bytes.count), SQLiteCall.transient)
            } else {
                sqlite3_bind_zeroblob(statement, index, 0)
            }
        guard code == SQLITE_OK else { throw SQLiteCall.error(code, statement: statement) }
    }

    /// Binds the next parameter to `bytes` as a blob, or to NULL for `nil`.
    mutating func bind(optional bytes: Data?) throws {
        guard let bytes else { return try bind(optional: UnsafeRawBufferPointer?.none) }
        try bind(bytes)
    }

    /// Binds the next parameter to an integer.
    mutating func bind(_ value: Int64) throws {
        parameter += 1
        let code = sqlite3_bind_int64(statement, parameter, value)
        guard code == SQLITE_OK else { throw SQLiteCall.error(code, statement: statement) }
    }

    /// Binds the next parameter to `text`.
    mutating func bind(_ text: String) throws {
        parameter += 1
        let code = sqlite3_bind_text(statement, parameter, text, -1, SQLiteCall.transient)
        guard code == SQLITE_OK else { throw SQLiteCall.error(code, statement: statement) }
    }

    /// Zeroes the statement's count of virtual-machine instructions, which SQLite keeps across runs and
    /// which its progress handler measures budgets against (`ReadConnection.withinBudget`).
    func resetInstructionCount() {
        _ = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 1)
    }

    /// Steps to the next row: `true` when there is one, `false` when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteCall.error(code, statement: statement)
        }
    }

    /// Column `index` of the current row as an integer (0 for NULL).
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(statement, index)
    }

    /// Column `index` of the current row as bytes, or `nil` for NULL.
    func blob(_ index: Int32) -> Data? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        // `sqlite3_column_blob` comes first, then `_bytes` (SQLite's documented order).
        guard let bytes = sqlite3_column_blob(statement, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, index)))
    }

    /// The length of column `index` of the current row, or `nil` for NULL.
    func length(_ index: Int32) -> Int? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        // `sqlite3_column_blob` first, so that the length is that of the blob form (SQLite's documented order).
        _ = sqlite3_column_blob(statement, index)
        return Int(sqlite3_column_bytes(statement, index))
    }

    /// Copies column `index` of the current row (as a blob) into `target`, which holds exactly its length.
    func copy(_ index: Int32, to target: UnsafeMutableRawBufferPointer) {
        guard let source = sqlite3_column_blob(statement, index), let base = target.baseAddress else { return }
        base.copyMemory(from: source, byteCount: target.count)
    }

    /// Column `index` as bytes; NULL in a NOT NULL column means a damaged file.
    func requiredBlob(_ index: Int32) throws -> Data {
        guard let bytes = blob(index) else { throw Self.unexpectedNull }
        return bytes
    }

    /// Column `index` as UTF-8 text; NULL in a NOT NULL column means a damaged file.
    func requiredText(_ index: Int32) throws -> String {
        guard let text = sqlite3_column_text(statement, index) else { throw Self.unexpectedNull }
        return String(cString: text)
    }

    private static var unexpectedNull: DatabaseError {
        DatabaseError(resultCode: .SQLITE_CORRUPT, message: "NULL in a NOT NULL column")
    }
}
