import Foundation
import Latchkey
import LatchkeySync
import LatchkeyTesting
import Testing

/// The hybrid logical clock: causality wins over clocks that disagree by ten minutes.
@Suite struct HybridLogicalClockTests {
    private let start = ManualClock.defaultStart

    @Test func readingsOfOneClockAlwaysIncrease() {
        let physical = ManualClock(start)
        let clock = HybridLogicalClock(machine: SyncFixture.machineA, physicalClock: physical)
        var previous = clock.now()
        for step in 0..<50 {
            if step % 10 == 0 { physical.advance(by: 0.001) }
            if step == 25 { physical.set(start.addingTimeInterval(-60)) }  // the clock is set back a minute
            let next = clock.now()
            #expect(previous < next)
            previous = next
        }
        #expect(previous.physicalMilliseconds == UInt64(start.timeIntervalSince1970 * 1000) + 3)
    }

    @Test(arguments: [600.0, -600.0])
    func anEditAfterSeeingAnotherWinsWithClocksTenMinutesApart(offset: TimeInterval) {
        // A's clock is right; B's is `offset` seconds off.
        let physicalA = ManualClock(start)
        let physicalB = ManualClock(start.addingTimeInterval(offset))
        let clockA = HybridLogicalClock(machine: SyncFixture.machineA, physicalClock: physicalA)
        let clockB = HybridLogicalClock(machine: SyncFixture.machineB, physicalClock: physicalB)
        // A edits; B pulls A's edit, then edits the same item.
        let editA = clockA.now()
        clockB.receive(editA)
        let editB = clockB.now()
        #expect(editA < editB)
        // A pulls B's edit and edits again, a millisecond later on its own clock.
        physicalA.advance(by: 0.001)
        clockA.receive(editB)
        let editA2 = clockA.now()
        #expect(editB < editA2)
        // Concurrent edits (neither saw the other) are ordered alike everywhere: by the total order.
        let concurrentA = clockA.now()
        let concurrentB = clockB.now()
        #expect((concurrentA < concurrentB) != (concurrentB < concurrentA))
    }

    @Test func receiveReturnsLaterThanBothClocks() {
        let clock = HybridLogicalClock(machine: SyncFixture.machineA, physicalClock: ManualClock(start))
        let local = clock.now()
        let ahead = HLCTimestamp(
            physicalMilliseconds: local.physicalMilliseconds + 600_000,
            counter: 7,
            machine: SyncFixture.machineB
        )
        let received = clock.receive(ahead)
        #expect(received > ahead && received > local)
        #expect(received.physicalMilliseconds == ahead.physicalMilliseconds && received.counter == 8)
        #expect(clock.now() > received)
    }

    @Test func randomExchangesKeepEverySendBeforeItsReceive() {
        let random = SeededRandom(seed: 1026)
        func draw(_ bound: Int) -> Int { random.bytes(4).reduce(0) { $0 << 8 | Int($1) } % bound }
        let machines = (0..<3).map { index in
            let physical = ManualClock(start.addingTimeInterval(Double([-600, 0, 600][index])))
            return (physical, HybridLogicalClock(machine: UUID(), physicalClock: physical))
        }
        var last = machines.map { $0.1.now() }
        for _ in 0..<500 {
            let sender = draw(3)
            let receiver = (sender + 1 + draw(2)) % 3
            machines[draw(3)].0.advance(by: Double(draw(5)) / 1000)
            let sent = machines[sender].1.now()
            #expect(sent > last[sender])
            let received = machines[receiver].1.receive(sent)
            #expect(received > sent && received > last[receiver])
            last[sender] = sent
            last[receiver] = received
        }
    }

    @Test func orderIsMillisecondsThenCounterThenMachine() {
        let a = SyncFixture.machineA
        let b = SyncFixture.machineB
        #expect(
            HLCTimestamp(physicalMilliseconds: 1, counter: 9, machine: b)
                < .init(physicalMilliseconds: 2, counter: 0, machine: a)
        )
        #expect(
            HLCTimestamp(physicalMilliseconds: 2, counter: 1, machine: b)
                < .init(physicalMilliseconds: 2, counter: 2, machine: a)
        )
        #expect(
            HLCTimestamp(physicalMilliseconds: 2, counter: 2, machine: a)
                < .init(physicalMilliseconds: 2, counter: 2, machine: b)
        )
    }

    @Test func aRestartedClockContinuesAfterItsLastReading() {
        let last = HLCTimestamp(
            physicalMilliseconds: UInt64(start.timeIntervalSince1970 * 1000) + 5000,
            counter: 3,
            machine: SyncFixture.machineA
        )
        let clock = HybridLogicalClock(machine: SyncFixture.machineA, physicalClock: ManualClock(start), last: last)
        #expect(clock.now() > last)
    }
}
