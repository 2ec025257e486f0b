import ArgumentParser

/// `security`'s keychain given as the last argument (`find-generic-password -s svc login.keychain-db`,
/// `dump-keychain work`), for the commands that take no other positional argument: rewritten as `-k NAME`.
enum TrailingKeychain {
    /// The commands that take a keychain as their last argument.
    static let commands: Set<String> = [
        "find-generic-password", "find-internet-password", "delete-generic-password", "delete-internet-password",
        "add-generic-password", "add-internet-password", "dump-keychain", "find-certificate", "find-key",
        "find-identity", "delete-certificate", "show-keychain-info", "verify-keychain", "set-keychain-settings",
    ]

    /// `arguments` with a trailing keychain turned into `-k NAME`, when the command is one of `commands`, no `-k`
    /// is given, and the arguments parse only that way; else `arguments` unchanged.
    static func rewrite(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, commands.contains(command), arguments.count >= 2,
            let last = arguments.last, !last.hasPrefix("-"), !last.isEmpty,
            !arguments.contains(where: { $0 == "-k" || $0 == "--keychain" || $0.hasPrefix("--keychain=") }),
            !arguments.contains("--")
        else { return arguments }
        if (try? LatchkeyCommand.parseAsRoot(arguments)) != nil { return arguments }
        let rewritten = Array(arguments.dropLast()) + ["-k", last]
        return (try? LatchkeyCommand.parseAsRoot(rewritten)) != nil ? rewritten : arguments
    }
}
