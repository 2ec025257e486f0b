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
        try refuse(damaged, action: action)
        return damaged
    }

    /// Without `--skip-damaged`, throws the error naming `damaged` (when there are any); else returns.
    ///
    /// - Throws: `KeychainError.Code.decode` naming every damaged item, unless `--skip-damaged`.
    func refuse(_ damaged: [DamagedItem], action: String) throws {
        guard !damaged.isEmpty, !skipDamaged else { return }
        throw KeychainError(
            .decode,
            "Did not \(action): \(damaged.count) item(s) failed authentication (damaged or tampered): "
                + damaged.map(\.description).joined(separator: ", ")
                + ". Give --skip-damaged to \(action) the other items (each left out is named; exit status 65)."
        )
    }

    /// Names each skipped item on standard error and ends the command with `ExitStatus.damagedSkipped`;
    /// returns when nothing was skipped.
    ///
    /// With `--json` the skipped items are one JSON error object instead (errSecDecode, exit status 65).
    func finish(skipped damaged: [DamagedItem]) throws {
        guard !damaged.isEmpty else { return }
        if ErrorReport.json {
            let message =
                "Left out \(damaged.count) item(s) that failed authentication (damaged or tampered): "
                + damaged.map(\.description).joined(separator: ", ") + "."
            reportError(KeychainError(.decode, message), exitStatus: ExitStatus.damagedSkipped)
        } else {
            for item in damaged { warn("skipped damaged item \(item): it failed authentication (damaged or tampered)") }
        }
        throw ExitCode(ExitStatus.damagedSkipped)
    }
}
