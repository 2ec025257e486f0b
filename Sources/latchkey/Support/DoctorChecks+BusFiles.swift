import Foundation

extension DoctorChecks {
    /// A D-Bus service file that claims `org.freedesktop.secrets`.
    struct BusServiceFile {
        /// Its path.
        var path: String
        /// Its directory.
        var directory: String
        /// Its `Exec=` line's value.
        var exec: String
        /// Whether it starts Latchkey (its `Exec` runs a `latchkey`).
        var isLatchkey: Bool {
            exec.split(separator: " ").first.map { URL(fileURLWithPath: String($0)).lastPathComponent } == "latchkey"
        }
    }

    /// The D-Bus service files that claim `org.freedesktop.secrets`, and the finding about them.
    struct BusServiceFiles {
        /// Every claiming file, in the bus's search order.
        var files: [BusServiceFile]
        /// The one the bus activates: the first directory's (when that directory has one claim).
        var winner: BusServiceFile?
        /// The finding.
        var finding: DoctorFinding
    }

    /// Reads every `*.service` file of the session bus's search path (`DoctorPaths.busServiceDirectories`)
    /// and keeps those whose `Name=` is `org.freedesktop.secrets`.
    ///
    /// The bus takes the first directory that has a file for a name; two files for the same name in one
    /// directory make it pick one arbitrarily (keepassxc #6274), which is reported as needing action.
    func busServiceFiles() -> BusServiceFiles {
        var files: [BusServiceFile] = []
        for directory in paths.busServiceDirectories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".service") }.sorted()
            for name in names {
                let path = directory + "/" + name
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                var claimed = false
                var exec = ""
                for line in text.split(separator: "\n") {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("Name=") {
                        claimed = trimmed.dropFirst(5).trimmingCharacters(in: .whitespaces) == "org.freedesktop.secrets"
                    }
                    if trimmed.hasPrefix("Exec=") { exec = trimmed.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                }
                if claimed { files.append(BusServiceFile(path: path, directory: directory, exec: exec)) }
            }
        }
        let first = files.first.map { winner in files.filter { $0.directory == winner.directory } } ?? []
        let crowded = Dictionary(grouping: files, by: \.directory).filter { $0.value.count > 1 }
        let winner = first.count == 1 ? first.first : nil
        var details = files.map { "\($0.path): Exec=\($0.exec)\($0.path == winner?.path ? "   (wins)" : "")" }
        for (directory, claims) in crowded.sorted(by: { $0.key < $1.key }) {
            details.append(
                "\(claims.count) files claim org.freedesktop.secrets in \(directory): the bus picks one of them "
                    + "arbitrarily (keepassxc #6274)"
            )
        }
        let shipped = paths.shipped("dbus-1/services/org.freedesktop.secrets.service")
        let userDirectory = paths.typed(paths.busServiceDirectories[0])
        let link =
            "mkdir -p \(userDirectory) && ln -sf "
            + "\(shipped ?? "<prefix>/share/latchkey/dbus-1/services/org.freedesktop.secrets.service") "
            + "\(userDirectory)/org.freedesktop.secrets.service"
        var finding = DoctorFinding(
            check: "dbus-service-files",
            status: .action,
            summary: "",
            details: details,
            facts: [
                "files": .array(
                    files.map {
                        .object(["path": .string($0.path), "exec": .string($0.exec), "latchkey": .bool($0.isLatchkey)])
                    }
                ),
                "winner": winner.map { .string($0.path) } ?? .null,
                "shipped": shipped.map(JSONValue.string) ?? .null,
            ]
        )
        if first.count > 1 {
            let others = first.filter { !$0.isLatchkey }.map(\.path)
            finding.summary =
                "\(first.count) D-Bus service files claim org.freedesktop.secrets in \(first[0].directory)"
                + ": the bus starts either"
            finding.next =
                others.isEmpty
                ? "rm \(first.dropFirst().map(\.path).joined(separator: " "))"
                : "rm \(others.joined(separator: " "))"
        } else if let winner, winner.isLatchkey {
            finding.status = .ok
            finding.summary = "D-Bus activation of org.freedesktop.secrets starts Latchkey (\(winner.path))"
        } else if let winner {
            finding.summary = "D-Bus activation of org.freedesktop.secrets starts \(winner.exec) (\(winner.path))"
            finding.next = link
        } else {
            finding.summary =
                "no D-Bus service file claims org.freedesktop.secrets (looked in "
                + "\(paths.busServiceDirectories.joined(separator: ", ")))"
            finding.next = link
        }
        if shipped == nil, finding.next == link {
            finding.details.append("Latchkey's file is not installed yet: run scripts/install.sh (docs/install.md)")
        }
        return BusServiceFiles(files: files, winner: winner, finding: finding)
    }
}
