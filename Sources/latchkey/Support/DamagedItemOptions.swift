import ArgumentParser
import Foundation
import Latchkey

/// `--skip-damaged` for the commands that read every item (`dump-keychain`, `export`).
///
/// Reads skip an item whose stored row fails authentication, as Apple's keychain does; a dump or a backup
/// must not. Without the flag such a command fails before writing anything, naming each damaged item (class
/// and persistent reference, never an attribute value); with it, the command writes the other items, names
/// each one it left out on standard error and exits with `ExitStatus.damagedSkipped`.
struct DamagedItemOptions: ParsableArguments {
    @Flag(
        name: .customLong("skip-damaged"),
        help: "Leave out items that fail authentication (named on stderr; exit status 65) instead of failing."
    )
    var skipDamaged = false

    /// The damaged items of every storable class; without `--skip-damaged`, an error naming them.
    ///
    /// - Parameters:
    ///   - service: The keychain opened in process, or the agent's client.
    ///   - includingSecrets: Whether the command reads secrets (so a damaged secret counts too).
    ///   - action: What the command would not do, for the error ("export", "dump").
    /// - Throws: `KeychainError.Code.decode` naming every damaged item, unless `--skip-damaged`.
    func damagedItems(in service: any KeychainService, includingSecrets: Bool, action: String) throws -> [DamagedItem] {
        var damaged: [DamagedItem] = []
        for itemClass in ItemClass.storable {
            damaged += try service.damagedItems(itemClass, includingSecrets: includingSecrets)
        }
        guard !damaged.isEmpty, !skipDamaged else { return damaged }
        throw KeychainError(
            .decode,
            "Did not \(action): \(damaged.count) item(s) failed authentication (damaged or tampered): "
                + damaged.map(\.description).joined(separator: ", ")
                + ". Give --skip-damaged to \(action) the other items (each left out is named; exit status 65)."
        )
    }

    /// Names each skipped item on standard error and ends the command with `ExitStatus.damagedSkipped`;
    /// returns when nothing was skipped.
    func finish(skipped damaged: [DamagedItem]) throws {
        guard !damaged.isEmpty else { return }
        for item in damaged { warn("skipped damaged item \(item): it failed authentication (damaged or tampered)") }
        throw ExitCode(ExitStatus.damagedSkipped)
    }
}
