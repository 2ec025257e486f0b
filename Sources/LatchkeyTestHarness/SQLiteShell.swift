import Foundation
import Testing

/// The Debian `sqlite3` shell, which the damage tests use to read and alter stored rows.
public enum SQLiteShell {
    /// Runs `sql` on `database` with `/usr/bin/sqlite3`; the test fails when the shell is missing or the
    /// statement fails.
    ///
    /// - Returns: What the shell printed.
    public static func run(_ database: String, _ sql: String) throws -> String {
        let executable = "/usr/bin/sqlite3"
        try #require(
            FileManager.default.isExecutableFile(atPath: executable),
            "the sqlite3 shell is needed: apt-get install -y sqlite3"
        )
        let result = try CLIRunner.run(executable, [database, sql], environment: [:])
        try #require(result.status == 0, "sqlite3 \(sql): \(result.stderr)")
        return result.stdout
    }
}
