import Foundation

/// The process's ordered keychain access groups (Linux has no entitlements).
///
/// Resolution order: `LATCHKEY_ACCESS_GROUPS` (comma-separated); else the `keychain-access-groups`
/// array of a `<executable>.entitlements` property list beside the executable; else the
/// `CFBundleIdentifier` of an `Info.plist` beside the executable; else the executable's resolved absolute
/// path, then its file name. The first group is where new items go; searches cover all of them.
///
/// The path is the application's identity, as the agent gives it (docs/agent.md, "Identity and access
/// groups"); the file name is the group earlier versions gave, kept second so that items stored under it
/// stay readable and writable in process after the upgrade.
public enum AccessGroups {
    /// The groups of the current process.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let list = environment["LATCHKEY_ACCESS_GROUPS"] {
            let groups = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            if !groups.isEmpty { return groups }
        }
        let executable = executablePath()
        let directory = (executable as NSString).deletingLastPathComponent
        let name = (executable as NSString).lastPathComponent
        if let plist = propertyList(at: directory + "/" + name + ".entitlements"),
            let groups = plist["keychain-access-groups"] as? [String], !groups.isEmpty
        {
            return groups
        }
        if let plist = propertyList(at: directory + "/Info.plist"),
            let identifier = plist["CFBundleIdentifier"] as? String, !identifier.isEmpty
        {
            return [identifier]
        }
        return [executable, name.isEmpty ? "latchkey" : name]
    }

    /// The executable's file name: the typed API's default service (`Keychain.init()`).
    public static func executableName() -> String {
        let name = (executablePath() as NSString).lastPathComponent
        return name.isEmpty ? "latchkey" : name
    }

    private static func executablePath() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
        return CommandLine.arguments.first ?? "latchkey"
    }

    private static func propertyList(at path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
    }
}
