import Foundation
import Latchkey
import Testing

/// The wire codec refuses what is not a version 6 frame: another version with `unimplemented` (-4), and
/// with `decode` (-26275) every truncation of a real frame, a length or count longer than what remains
/// (2^60 included, before anything is allocated), unknown tags, bytes left over, a boolean that is neither
/// 0 nor 1, invalid UTF-8, a repeated attribute, a NaN, an overlong varint and batches nested too deep.
struct WireFrameRefusalTests {
    /// 2^60 as a LEB128 varint.
    static let twoToTheSixty: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]

    /// The documented layout of `.exists(ItemQuery(nil))`: version, operation tag 7, no class, no
    /// attributes, synchronizable `no` (1), no reference, no tombstones, no host, no identity, no search tags.
    static let existsFrame: [UInt8] = [6, 7, 0, 0, 1, 0, 0, 0, 0, 0]

    static func expectRefused(
        _ code: KeychainError.Code,
        _ frame: [UInt8],
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let operation = try KeychainWireCodec.decodeOperation(Data(frame))
            Issue.record("accepted as \(operation): \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, comment, sourceLocation: sourceLocation)
        }
    }

    static func expectOutcomeRefused(_ frame: [UInt8], _ comment: Comment? = nil) {
        do {
            let outcome = try KeychainWireCodec.decodeOutcome(Data(frame))
            Issue.record("accepted as \(outcome): \(comment?.rawValue ?? "")")
        } catch {
            #expect(error.code == .decode, comment)
        }
    }

    @Test func theFrameLayoutIsTheDocumentedOne() throws {
        #expect([UInt8](try KeychainWireCodec.encode(.exists(ItemQuery(nil)))) == Self.existsFrame)
        #expect([UInt8](try KeychainWireCodec.encode(.lockState)) == [6, 11])
        #expect([UInt8](try KeychainWireCodec.encode(.success(.count(-2)))) == [6, 1, 2, 3])
        #expect(
            [UInt8](try KeychainWireCodec.encode(.failure(KeychainError(.itemNotFound, "no")))) == [
                6, 2, 0xA7, 0x8B, 0x03, 2,
            ]
                + Array("no".utf8)
        )
        // docs/wire-protocol.md's worked examples: a find by service with data, and a one-item answer.
        let find = KeychainOperation.find(
            FindRequest(
                ItemQuery(.genericPassword, attributes: [.service: .string("svc")]),
                withData: true,
                authenticationReuse: nil
            )
        )
        let findBytes: [UInt8] =
            [6, 6]  // version, find
            + [1, 1, 1, 4] + Array("svce".utf8) + [1, 3] + Array("svc".utf8)  // class genp; one attribute
            + [1, 0, 0, 0, 0, 0]  // synchronizable no; no reference, tombstones, host, identity, tags
            + [1, 1, 3, 2, 0, 0, 0]  // limit one, withData, fail, report, no reuse, no tags, not references only
        #expect([UInt8](try KeychainWireCodec.encode(find)) == findBytes)
        let found = FoundItem(
            itemClass: .genericPassword,
            attributes: [.account: .string("a")],
            data: SecretData(string: "s"),
            persistentReference: Data([1, 2])
        )
        let answerBytes: [UInt8] =
            [6, 1, 1, 1]  // version, outcome, items, one item
            + [1, 1, 4] + Array("acct".utf8) + [1, 1] + Array("a".utf8)  // genp; one attribute
            + [1, 1] + Array("s".utf8) + [2, 1, 2, 0]  // the secret, the persistent reference, no tags
        #expect([UInt8](try KeychainWireCodec.encode(.success(.items([found])))) == answerBytes)
        // The binary hello of a client that narrows nothing and has no terminal.
        #expect(
            [UInt8](AgentHandshake.encode(AgentHandshake.Hello(accessGroups: nil, terminal: [:]))) == [
                6, 0, 0, 0, 0, 0, 0,
            ]
        )
    }

    /// An operation or outcome tag past this build's last one (what a newer Latchkey adds without changing the
    /// version, docs/wire-protocol.md "Versioning") is refused with `decode`, and the message names this
    /// build's protocol version, the tags it knows and the next step.
    @Test func anOperationOrOutcomeOfANewerPeerIsRefusedNamingTheVersions() throws {
        let nextOperation = KeychainOperation.Kind.highest.rawValue + 1
        let nextOutcome = KeychainOutcome.Kind.highest.rawValue + 1
        let refusals: [(String, () throws(KeychainError) -> Void)] = [
            (
                "operation",
                { () throws(KeychainError) in _ = try KeychainWireCodec.decodeOperation(Data([6, nextOperation])) }
            ),
            (
                "outcome",
                { () throws(KeychainError) in _ = try KeychainWireCodec.decodeOutcome(Data([6, 1, nextOutcome, 0])) }
            ),
        ]
        for (what, decode) in refusals {
            do {
                try decode()
                Issue.record("an unknown \(what) was accepted")
            } catch {
                #expect(error.code == .decode, "\(what)")
                let highest = what == "operation" ? nextOperation - 1 : nextOutcome - 1
                #expect(error.message.contains("\(what) \(highest + 1)"), "\(error.message)")
                #expect(error.message.contains("protocol version 6"), "\(error.message)")
                #expect(error.message.contains("1 to \(highest)"), "\(error.message)")
                #expect(error.message.contains("newer Latchkey"), "\(error.message)")
                #expect(error.message.contains("restart the agent"), "\(error.message)")
            }
        }
    }

    @Test func anotherVersionIsRefusedAsUnimplemented() throws {
        for version: UInt8 in [0, 1, 2, 3, 4, 5, 7, 0x7B, 0xFF] {
            Self.expectRefused(.unimplemented, [version, 11], "version \(version)")
            do {
                _ = try KeychainWireCodec.decodeOutcome(Data([version, 1, 2, 0]))
                Issue.record("an outcome of version \(version) was accepted")
            } catch {
                #expect(error.code == .unimplemented)
            }
        }
        do {
            _ = try KeychainWireCodec.decodeOperation(Data(#"{"version":1,"body":{"lockState":{}}}"#.utf8))
            Issue.record("a version 1 JSON frame was accepted")
        } catch {
            #expect(error.code == .unimplemented)
            #expect(error.message.contains("version 1 (JSON)"), "\(error.message)")
        }
    }

    @Test func everyTruncationOfARealFrameIsADecodeError() throws {
        let operations = try OperationWireTests.operations.map { try [UInt8](KeychainWireCodec.encode($0)) }
        for frame in operations where frame.count < 8192 {
            for length in 0..<frame.count {
                Self.expectRefused(.decode, Array(frame.prefix(length)), "\(length) of \(frame.count) bytes")
            }
        }
        let results: [Result<KeychainOutcome, KeychainError>] =
            OperationWireTests.outcomes.map { .success($0) } + [
                .failure(KeychainError(.duplicateItem, "already there"))
            ]
        for frame in try results.map({ try [UInt8](KeychainWireCodec.encode($0)) }) where frame.count < 8192 {
            for length in 0..<frame.count {
                Self.expectOutcomeRefused(Array(frame.prefix(length)), "\(length) of \(frame.count) bytes")
            }
        }
    }

    @Test func lengthsAndCountsOfTwoToTheSixtyAreRefusedBeforeAnyAllocation() throws {
        let huge = Self.twoToTheSixty
        let frames: [(String, [UInt8])] = [
            ("attribute count", [6, 7, 0] + huge),
            ("attribute name length", [6, 7, 0, 1] + huge),
            ("data attribute length", [6, 7, 0, 1, 1, 0x61, 2] + huge),
            ("string attribute length", [6, 7, 0, 1, 1, 0x61, 1] + huge),
            ("persistent reference length", [6, 7, 0, 0, 1, 1] + huge),
            ("items to add", [6, 2] + huge),
            ("batch count", [6, 10] + huge),
            ("passphrase length", [6, 12, 1] + huge),
            ("new item secret length", [6, 1, 1, 0, 1] + huge),
            ("new item search tag count", [6, 1, 1, 0, 0] + huge),
            ("query search tag count", [6, 7, 0, 0, 1, 0, 0, 0, 0] + huge),
            ("search tag length", [6, 7, 0, 0, 1, 0, 0, 0, 0, 1] + huge),
        ]
        for (what, frame) in frames {
            do {
                _ = try KeychainWireCodec.decodeOperation(Data(frame))
                Issue.record("\(what): accepted")
            } catch {
                #expect(error.code == .decode, "\(what)")
                #expect(error.message.contains("1152921504606846976"), "\(what): \(error.message)")
            }
        }
        for frame in [[6, 1, 1] + huge, [6, 1, 5] + huge, [6, 2, 0] + huge, [6, 1, 1, 1, 1, 0, 1] + huge] {
            Self.expectOutcomeRefused(frame, "\(frame)")
        }
    }

    @Test func malformedFramesAreDecodeErrors() throws {
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("version only", [6]),
            ("unknown operation tag", [6, 0xEE]),
            ("operation tag 0", [6, 0]),
            ("bytes left over", [6, 11, 0]),
            ("a boolean of 2", [6, 7, 2, 0, 1, 0, 0, 0, 0]),
            ("unknown class tag", [6, 7, 1, 9, 0, 1, 0, 0, 0, 0]),
            ("unknown synchronizable tag", [6, 7, 0, 0, 4, 0, 0, 0, 0]),
            ("unknown attribute tag", [6, 7, 0, 1, 1, 0x61, 6, 0, 1, 0, 0, 0, 0]),
            ("invalid UTF-8 name", [6, 7, 0, 1, 2, 0xC3, 0x28, 3, 0, 1, 0, 0, 0, 0]),
            ("a repeated attribute", [6, 7, 0, 2, 1, 0x61, 3, 0, 1, 0x61, 3, 2, 1, 0, 0, 0, 0]),
            (
                "a varint over 64 bits",
                [6, 7, 0, 1, 1, 0x61, 3] + Array(repeating: 0xFF, count: 9) + [0x02, 1, 0, 0, 0, 0]
            ),
            ("a varint of 11 bytes", [6, 2] + Array(repeating: 0x80, count: 10) + [0]),
            ("a short double", [6, 7, 0, 1, 1, 0x61, 4, 0, 0, 0]),
            ("a NaN double", [6, 7, 0, 1, 1, 0x61, 4, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F, 1, 0, 0, 0, 0]),
            ("a NaN date", [6, 7, 0, 1, 1, 0x61, 5, 1, 0, 0, 0, 0, 0, 0xF8, 0xFF, 1, 0, 0, 0, 0]),
            ("unknown credential", [6, 12, 3, 0]),
            ("unknown match limit", [6, 9] + Self.existsFrame.dropFirst(2) + [4]),
            ("unknown authentication", [6, 8] + Self.existsFrame.dropFirst(2) + [0, 0, 0, 9]),
            ("a search tag count past the end", [6, 7, 0, 0, 1, 0, 0, 0, 0, 2, 0]),
            ("an invalid UTF-8 search tag", [6, 7, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0xC3, 0x28]),
            ("search tags of a change with a presence of 2", [6, 8] + Self.existsFrame.dropFirst(2) + [0, 0, 2]),
        ]
        for (what, frame) in cases {
            Self.expectRefused(.decode, frame, "\(what)")
        }
        let outcomeCases: [(String, [UInt8])] = [
            ("unknown reply tag", [6, 3]), ("unknown outcome tag", [6, 1, 99]), ("unknown lock state", [6, 1, 4, 0]),
            ("unknown restore outcome", [6, 1, 7, 4]), ("bytes left over", [6, 1, 3, 1, 0]),
            ("a status code over 32 bits", [6, 2, 0x80, 0x80, 0x80, 0x80, 0x20, 0]),
        ]
        for (what, frame) in outcomeCases {
            Self.expectOutcomeRefused(frame, "\(what)")
        }
    }

    static func nested(_ levels: Int) -> KeychainOperation {
        (0..<levels).reduce(KeychainOperation.lockState) { inner, _ in .batch([inner]) }
    }

    @Test func batchesNestAtMostThirtyTwoLevels() throws {
        let deepest = Self.nested(32)
        #expect(try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(deepest)) == deepest)
        do {
            _ = try KeychainWireCodec.encode(Self.nested(33))
            Issue.record("a batch 33 levels deep was encoded")
        } catch {
            #expect(error.code == .param)
        }
        let frame: [UInt8] = [6] + Array([[UInt8]](repeating: [10, 1], count: 100_000).joined()) + [11]
        Self.expectRefused(.decode, frame, "100 000 nested batches")
        let outcomes: [UInt8] = [6, 1] + Array([[UInt8]](repeating: [8, 1], count: 100_000).joined()) + [3, 0]
        Self.expectOutcomeRefused(outcomes, "100 000 nested batch answers")
    }
}
