import Latchkey

/// The keychain service a short command used, kept open until the process exits.
///
/// Closing the last connection makes SQLite checkpoint and delete the WAL, and the next process's pool then
/// recreates it with a write — four `fdatasync` calls for a read-only lookup. Every change is already durable when
/// its transaction commits (`synchronous = FULL`), so the process exits with the connection open, as after a crash
/// at an idle moment: the WAL stays and the next opener reuses it. The item commands (`ItemCommandRun`) and
/// `git-credential` keep theirs here.
enum KeptOpen {
    /// The service kept open (the in-process store, or the agent's client).
    nonisolated(unsafe) static var service: (any KeychainService)?
}
