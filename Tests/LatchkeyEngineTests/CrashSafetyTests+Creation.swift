import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Creations killed with SIGKILL, by `create-keychain` and by the first use of a key file: afterwards there
/// is no keychain or a complete one, and a retried creation leaves no temporary file.
extension CrashSafetyTests {
    /// The two ways a keychain comes to exist, both unlocked by the fixture's key file.
    enum Creation: String, CaseIterable {
        case createKeychain = "create-keychain"
        case firstUse = "first use (add-generic-password)"

        var arguments: [String] {
            switch self {
            case .createKeychain: ["create-keychain"]
            case .firstUse: ["add-generic-password", "-U", "-s", "svc", "-a", "acct", "-w", "secret-first-use"]
            }
        }
    }

    /// The entries of the fixture's directory that a creation may leave behind when killed.
    static func temporaryEntries(_ fixture: KeyFileFixture) throws -> [String] {
        try fixture.entries(startingWith: "test.keychain-db.creating-")
            + fixture.entries(startingWith: "device-secret.").filter { $0 != "device-secret.lock" }
    }

    /// Whether `name`, in the fixture's directory, is another name (hard link) of the keychain file itself.
    static func isSecondName(_ name: String, of fixture: KeyFileFixture) -> Bool {
        var entry = stat()
        var keychain = stat()
        guard stat(fixture.directory + "/" + name, &entry) == 0, stat(fixture.keychain, &keychain) == 0 else {
            return false
        }
        return entry.st_ino == keychain.st_ino && entry.st_dev == keychain.st_dev
    }

    /// Whether `name`, in the fixture's directory, is an empty temporary database or a journal of one.
    static func belongsToAnEmptyTemporaryFile(_ name: String, in fixture: KeyFileFixture) -> Bool {
        var main = name
        for suffix in ["-journal", "-wal", "-shm"] where main.hasSuffix(suffix) { main.removeLast(suffix.count) }
        var entry = stat()
        return main.hasPrefix("test.keychain-db.creating-") && stat(fixture.directory + "/" + main, &entry) == 0
            && entry.st_size == 0
    }

    /// Expects the fixture's keychain to open with the key file and to be sound; for a first use, its one item
    /// is either absent or holds its secret.
    ///
    /// - Returns: Whether the keychain is complete, and whether it holds the first use's item.
    static func expectComplete(
        _ fixture: KeyFileFixture,
        _ creation: Creation,
        itemRequired: Bool,
        _ moment: String
    ) throws -> (complete: Bool, hasItem: Bool) {
        let verify = try fixture.latchkey(["debug", "verify"])
        let sound =
            verify.status == 0 && verify.stdout.contains("\"sqlite\":[\"ok\"]")
            && verify.stdout.contains("\"undecryptable\":[]")
            && FileManager.default.contents(atPath: fixture.deviceSecret)?.count == 32
        #expect(sound, "\(moment): \(verify.stdout) \(verify.stderr)")
        guard creation == .firstUse else { return (sound, false) }
        let found = try fixture.latchkey(["find-generic-password", "-s", "svc", "-a", "acct", "-w"])
        if found.status == 44 && !itemRequired { return (sound, false) }
        #expect(found.status == 0 && found.stdout == "secret-first-use\n", "\(moment): \(found.stderr)")
        return (sound, found.status == 0)
    }

    @Test func killedCreationLeavesNoKeychainOrACompleteOneAndNoTemporaryFilesOnceRetried() throws {
        // A creation left to finish shows how many file events it makes (device secret, temporary database,
        // link, unlock); the killed rounds spread their kill points from the spawn to the last event.
        var eventsPerCreation: [Creation: Int] = [:]
        for creation in Creation.allCases {
            let fixture = try KeyFileFixture(deviceSecret: "device-secret")
            let environment = fixture.environment
            let events = try DirectoryEvents(directory: fixture.directory)
            let child = try BuiltExecutable.spawn(creation.arguments, environment: environment)
            #expect(events.wait(for: .max, whileRunning: child.pid, timeout: 60) == .exited)
            let finished = child.waitForExit(timeout: 60)
            try #require(finished.status == 0, "\(creation.rawValue): \(finished.stderr)")
            eventsPerCreation[creation] = events.count
        }

        let roundsPerCreation = 12
        var killed = 0
        var absent = 0
        var complete = 0
        var withItem = 0
        var halfInitialised = 0
        var leftBeforeRetry = 0
        var secondNames = 0
        var emptyKept = 0
        for round in 0..<(roundsPerCreation * Creation.allCases.count) {
            let creation = Creation.allCases[round % Creation.allCases.count]
            let step = round / Creation.allCases.count
            let touches = step * (eventsPerCreation[creation] ?? 0) / (roundsPerCreation - 1)
            let moment = "round \(round), \(creation.rawValue), kill at file event \(touches)"
            let fixture = try KeyFileFixture(deviceSecret: "device-secret")
            let environment = fixture.environment
            let events = try DirectoryEvents(directory: fixture.directory)
            let child = try BuiltExecutable.spawn(creation.arguments, environment: environment)
            if events.wait(for: touches, whileRunning: child.pid, timeout: 60) == .reached { child.kill(SIGKILL) }
            let finished = child.waitForExit(timeout: 60)
            #expect(finished.signal == SIGKILL || finished.status == 0, "\(moment): \(finished.stderr)")
            if finished.signal == SIGKILL { killed += 1 }

            // No keychain, or a complete one: it opens with the key file, is sound, and holds the item or not.
            let existed = FileManager.default.fileExists(atPath: fixture.keychain)
            if existed {
                let found = try Self.expectComplete(fixture, creation, itemRequired: false, moment)
                if found.complete { complete += 1 } else { halfInitialised += 1 }
                if found.hasItem { withItem += 1 }
            } else {
                absent += 1
            }
            if try !Self.temporaryEntries(fixture).isEmpty { leftBeforeRetry += 1 }

            // The same command again: it creates the keychain (or, for create-keychain, says it exists), and
            // nothing temporary is left.
            let retried = try fixture.latchkey(creation.arguments)
            if creation == .createKeychain && existed {
                #expect(retried.status == 1 && retried.stderr.contains("-25299"), "\(moment): \(retried.stderr)")
            } else {
                #expect(retried.status == 0, "\(moment): retry: \(retried.stderr)")
            }
            _ = try Self.expectComplete(fixture, creation, itemRequired: true, moment + ", retried")
            let left = try Self.temporaryEntries(fixture)
            let known = left.filter {
                Self.isSecondName($0, of: fixture) || Self.belongsToAnEmptyTemporaryFile($0, in: fixture)
            }
            #expect(left.filter { !known.contains($0) } == [], "\(moment): left after the retry")
            if !known.isEmpty {
                if known.contains(where: { Self.isSecondName($0, of: fixture) }) {
                    secondNames += 1
                } else {
                    emptyKept += 1
                }
                // Opening the finished keychain (which the retry does) removes a second name of the keychain at
                // once; an empty temporary file (it holds nothing) may stay until it is a minute old, since a
                // live creator may not have locked it yet.
                #expect(known.filter { Self.isSecondName($0, of: fixture) } == [], "\(moment): left after the retry")
                // The next creation in the directory removes them once they are a minute old.
                for name in known {
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSinceNow: -120)],
                        ofItemAtPath: fixture.directory + "/" + name
                    )
                }
                let creating = try fixture.latchkey(["create-keychain"])
                #expect(creating.status == 1 && creating.stderr.contains("-25299"), "\(moment): \(creating.stderr)")
                #expect(try Self.temporaryEntries(fixture) == [], "\(moment): left after a later creation")
            }
            // The device-bound keys are there: a ThisDeviceOnly item is stored and read back.
            let bound = try fixture.latchkey([
                "add-generic-password", "-s", "bound", "-a", "a", "-w", "device-bound", "--accessible",
                "when-unlocked-this-device-only",
            ])
            #expect(bound.status == 0, "\(moment): \(bound.stderr)")
            let boundRead = try fixture.latchkey(["find-generic-password", "-s", "bound", "-w"])
            #expect(boundRead.stdout == "device-bound\n", "\(moment): \(boundRead.stderr)")
        }
        let rounds = roundsPerCreation * Creation.allCases.count
        let summary: [String] = [
            "CrashSafetyTests.killedCreation: \(rounds) rounds",
            "events per creation: \(eventsPerCreation[.createKeychain] ?? 0) create-keychain, "
                + "\(eventsPerCreation[.firstUse] ?? 0) first use",
            "\(killed) killed", "\(absent) left no keychain",
            "\(complete) a complete one (\(withItem) with the first item)",
            "\(leftBeforeRetry) left temporary files",
            "\(secondNames) left a second name of the finished keychain after the retry",
            "\(emptyKept) left an empty temporary file until a creation a minute later",
            "\(halfInitialised) half-initialised",
        ]
        FileHandle.standardError.write(Data((summary.joined(separator: "; ") + "\n").utf8))
        #expect(halfInitialised == 0)
        #expect(killed >= rounds / 2, "only \(killed) of \(rounds) kills landed before the creation ended")
    }
}
