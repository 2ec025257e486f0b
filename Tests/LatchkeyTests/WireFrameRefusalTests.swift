import Foundation
import Latchkey
import Testing

/// The wire codec refuses what is not a version 5 frame: another version with `unimplemented` (-4), and
/// with `decode` (-26275) every truncation of a real frame, a length or count longer than what remains
/// (2^60 included, before anything is allocated), unknown tags, bytes left over, a boolean that is neither
/// 0 nor 1, invalid UTF-8, a repeated attribute, a NaN, an overlong varint and batches nested too deep.
struct WireFrameRefusalTests {
    /// 2^60 as a LEB128 varint.
    static let twoToTheSixty: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]

    /// The documented layout of `.exists(ItemQuery(nil))`: version, operation tag 7, no class, no
    /// attributes, synchronizable `no` (1), no reference, no tombstones, no host, no identity, no search tags.
    static let existsFrame: [UInt8] = [5, 7, 0, 0, 1, 0, 0, 0, 0, 0]

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
        #expect([UInt8](try KeychainWireCodec.encode(.lockState)) == [5, 11])
        #expect([UInt8](try KeychainWireCodec.encode(.success(.count(-2)))) == [5, 1, 2, 3])
        #expect(
            [UInt8](try KeychainWireCodec.encode(.failure(KeychainError(.itemNotFound, "no")))) == [
                5, 2, 0xA7, 0x8B, 0x03, 2,
            ]
                + Array("no".utf8)
        )
    }

    @Test func anotherVersionIsRefusedAsUnimplemented() throws {
        for version: UInt8 in [0, 1, 2, 3, 4, 6, 0x7B, 0xFF] {
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
            ("attribute count", [5, 7, 0] + huge),
            ("attribute name length", [5, 7, 0, 1] + huge),
            ("data attribute length", [5, 7, 0, 1, 1, 0x61, 2] + huge),
            ("string attribute length", [5, 7, 0, 1, 1, 0x61, 1] + huge),
            ("persistent reference length", [5, 7, 0, 0, 1, 1] + huge),
            ("items to add", [5, 2] + huge),
            ("batch count", [5, 10] + huge),
            ("passphrase length", [5, 12, 1] + huge),
            ("new item secret length", [5, 1, 1, 0, 1] + huge),
            ("new item search tag count", [5, 1, 1, 0, 0] + huge),
            ("query search tag count", [5, 7, 0, 0, 1, 0, 0, 0, 0] + huge),
            ("search tag length", [5, 7, 0, 0, 1, 0, 0, 0, 0, 1] + huge),
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
        for frame in [[5, 1, 1] + huge, [5, 1, 5] + huge, [5, 2, 0] + huge, [5, 1, 1, 1, 1, 0, 1] + huge] {
            Self.expectOutcomeRefused(frame, "\(frame)")
        }
    }

    @Test func malformedFramesAreDecodeErrors() throws {
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("version only", [5]),
            ("unknown operation tag", [5, 0xEE]),
            ("operation tag 0", [5, 0]),
            ("bytes left over", [5, 11, 0]),
            ("a boolean of 2", [5, 7, 2, 0, 1, 0, 0, 0, 0]),
            ("unknown class tag", [5, 7, 1, 9, 0, 1, 0, 0, 0, 0]),
            ("unknown synchronizable tag", [5, 7, 0, 0, 4, 0, 0, 0, 0]),
            ("unknown attribute tag", [5, 7, 0, 1, 1, 0x61, 6, 0, 1, 0, 0, 0, 0]),
            ("invalid UTF-8 name", [5, 7, 0, 1, 2, 0xC3, 0x28, 3, 0, 1, 0, 0, 0, 0]),
            ("a repeated attribute", [5, 7, 0, 2, 1, 0x61, 3, 0, 1, 0x61, 3, 2, 1, 0, 0, 0, 0]),
            (
                "a varint over 64 bits",
                [5, 7, 0, 1, 1, 0x61, 3] + Array(repeating: 0xFF, count: 9) + [0x02, 1, 0, 0, 0, 0]
            ),
            ("a varint of 11 bytes", [5, 2] + Array(repeating: 0x80, count: 10) + [0]),
            ("a short double", [5, 7, 0, 1, 1, 0x61, 4, 0, 0, 0]),
            ("a NaN double", [5, 7, 0, 1, 1, 0x61, 4, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F, 1, 0, 0, 0, 0]),
            ("a NaN date", [5, 7, 0, 1, 1, 0x61, 5, 1, 0, 0, 0, 0, 0, 0xF8, 0xFF, 1, 0, 0, 0, 0]),
            ("unknown credential", [5, 12, 3, 0]),
            ("unknown match limit", [5, 9] + Self.existsFrame.dropFirst(2) + [4]),
            ("unknown authentication", [5, 8] + Self.existsFrame.dropFirst(2) + [0, 0, 0, 9]),
            ("a search tag count past the end", [5, 7, 0, 0, 1, 0, 0, 0, 0, 2, 0]),
            ("an invalid UTF-8 search tag", [5, 7, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0xC3, 0x28]),
            ("search tags of a change with a presence of 2", [5, 8] + Self.existsFrame.dropFirst(2) + [0, 0, 2]),
        ]
        for (what, frame) in cases {
            Self.expectRefused(.decode, frame, "\(what)")
        }
        let outcomeCases: [(String, [UInt8])] = [
            ("unknown reply tag", [5, 3]), ("unknown outcome tag", [5, 1, 99]), ("unknown lock state", [5, 1, 4, 0]),
            ("unknown restore outcome", [5, 1, 7, 4]), ("bytes left over", [5, 1, 3, 1, 0]),
            ("a status code over 32 bits", [5, 2, 0x80, 0x80, 0x80, 0x80, 0x20, 0]),
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
        let frame: [UInt8] = [5] + Array([[UInt8]](repeating: [10, 1], count: 100_000).joined()) + [11]
        Self.expectRefused(.decode, frame, "100 000 nested batches")
        let outcomes: [UInt8] = [5, 1] + Array([[UInt8]](repeating: [8, 1], count: 100_000).joined()) + [3, 0]
        Self.expectOutcomeRefused(outcomes, "100 000 nested batch answers")
    }
}
