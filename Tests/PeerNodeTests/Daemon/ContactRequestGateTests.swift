@testable import PeerNode
import Transport
import XCTest

/// Five one-off requests to one contact at once (the `single-coin-5` race): at most two are
/// open together, so the contact's per-pubky budget (4) never evicts one of them; another
/// contact's requests do not wait behind them; every request runs, and errors pass through.
final class ContactRequestGateTests: XCTestCase {
    private static func pubky(_ byte: UInt8) -> Pubky {
        NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: byte, count: NodeSeed.length))).pubky
    }

    private actor Peak {
        var open = 0, peak = 0, done = 0
        func enter() { open += 1; peak = max(peak, open) }
        func leave() { open -= 1; done += 1 }
    }

    func testAtMostTwoRequestsToOneContactAreOpenAtOnce() async throws {
        let gate = ContactRequestGate()
        let carol = Self.pubky(0x41), dave = Self.pubky(0x42)
        let peak = Peak(), other = Peak()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    await gate.run(to: carol) { () async -> Void in
                        await peak.enter()
                        try? await Task.sleep(nanoseconds: 20_000_000)
                        await peak.leave()
                    }
                }
            }
            group.addTask {
                await gate.run(to: dave) { () async -> Void in
                    await other.enter()
                    await other.leave()
                }
            }
        }
        let carolPeak = await peak.peak, carolDone = await peak.done, daveDone = await other.done
        XCTAssertEqual(carolPeak, 2, "two at a time to one contact, never more (and the gate lets two run together)")
        XCTAssertEqual(carolDone, 5)
        XCTAssertEqual(daveDone, 1)
        let openAfter = await gate.openCount(to: carol)
        XCTAssertEqual(openAfter, 0, "every slot handed back")
    }

    func testAFailedRequestGivesItsSlotBack() async {
        struct Refused: Error {}
        let gate = ContactRequestGate(limit: 1)
        let carol = Self.pubky(0x43)
        do {
            try await gate.run(to: carol) { () async throws(Refused) -> Void in throw Refused() }
            XCTFail("the error passes through")
        } catch {}
        let ran = await gate.run(to: carol) { () async -> Bool in true }
        XCTAssertTrue(ran, "the slot came back after the failure")
        let openAfter = await gate.openCount(to: carol)
        XCTAssertEqual(openAfter, 0)
    }
}
