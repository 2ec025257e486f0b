import Foundation

extension DoctorChecks {
    /// The PAM stacks: `pam_latchkey.so` in the auth, session and password stacks of some `/etc/pam.d` file,
    /// and no `pam_gnome_keyring.so` left (it would start and unlock gnome-keyring at login).
    func pam() -> DoctorFinding {
        let directory = paths.pamDirectory
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        var latchkey: [String: [String]] = [:]
        var gnome: [String] = []
        var gnomeFiles: [String] = []
        var gnomeStacks: Set<String> = []
        for name in names {
            let path = directory + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.hasPrefix("#") else { continue }
                let words = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let first = words.first else { continue }
                let type = first.hasPrefix("-") ? String(first.dropFirst()) : String(first)
                if words.contains(where: { $0.hasSuffix("pam_latchkey.so") }) {
                    latchkey[type, default: []].append("\(path): \(trimmed)")
                }
                if words.contains(where: { $0.hasSuffix("pam_gnome_keyring.so") }) {
                    gnome.append("\(path): \(trimmed)")
                    gnomeStacks.insert(type)
                    if !gnomeFiles.contains(path) { gnomeFiles.append(path) }
                }
            }
        }
        let stacks = ["auth", "session", "password"]
        let missing = stacks.filter { latchkey[$0] == nil }
        let facts: [String: JSONValue] = [
            "latchkey": .object(latchkey.mapValues { .array($0.map(JSONValue.string)) }),
            "missing": .array(missing.map(JSONValue.string)),
            "gnomeKeyring": .array(gnome.map(JSONValue.string)),
        ]
        let details = stacks.flatMap { latchkey[$0] ?? [] } + gnome
        if missing.isEmpty && gnome.isEmpty {
            return DoctorFinding(
                check: "pam",
                status: .ok,
                summary: "pam_latchkey.so is in the auth, session and password stacks; pam_gnome_keyring.so is gone",
                details: details,
                facts: facts
            )
        }
        var problems: [String] = []
        if !missing.isEmpty {
            problems.append("pam_latchkey.so is missing from the \(missing.joined(separator: ", ")) stack(s)")
        }
        if !gnome.isEmpty { problems.append("pam_gnome_keyring.so is still in \(gnomeFiles.joined(separator: ", "))") }
        // Swapping gnome-keyring's lines puts Latchkey's in the same places; a stack with neither gets a line
        // in its common file.
        let module = pamModule
        var steps = missing.filter { !gnomeStacks.contains($0) }
            .map { "echo '\($0) optional \(module)' | sudo tee -a \(directory)/common-\($0)" }
        if !gnome.isEmpty {
            steps.insert(
                "sudo sed -i -E 's|pam_gnome_keyring\\.so.*$|\(module)|' \(gnomeFiles.joined(separator: " "))",
                at: 0
            )
        }
        let next = steps.joined(separator: " && ")
        return DoctorFinding(
            check: "pam",
            status: .action,
            summary: problems.joined(separator: "; "),
            details: details,
            next: next,
            facts: facts
        )
    }

    /// How a PAM line names the module: by full path when scripts/install.sh put it in
    /// `/usr/local/lib/security` (PAM finds a bare name only in its own directory), else by its bare name
    /// (the .deb installs it in the multiarch PAM directory).
    var pamModule: String {
        let installed = "/usr/local/lib/security/pam_latchkey.so"
        let path = paths.root == "/" ? installed : paths.root + installed
        return FileManager.default.fileExists(atPath: path) ? installed : "pam_latchkey.so"
    }
}
