import Bitcoin
import PeerNode
import XCTest

/// The follower's reorg logic without any backend: connecting, fork search, rewinding.
final class ChainViewTests: XCTestCase {
    /// A distinct fake hash per (branch, height).
    private func hash(_ height: Int, branch: UInt8 = 0) -> BlockHash {
        var bytes = [UInt8](repeating: branch, count: 32)
        bytes[0] = UInt8(height & 0xff)
        bytes[1] = UInt8(height >> 8)
        return try! BlockHash(bytes: bytes)
    }

    /// A view holding heights start-1 (the parent) ... end of `branch`.
    private func view(from start: Int, to end: Int, branch: UInt8 = 0, window: Int = 288) -> ChainView {
        var view = ChainView(nextHeight: start, parent: hash(start - 1, branch: branch), window: window)
        for height in start...end { XCTAssertTrue(view.connect(hash(height, branch: branch), previous: hash(height - 1, branch: branch))) }
        return view
    }

    /// Runs a fork search against a backend chain given as a height -> hash function,
    /// counting the questions asked.
    private func search(_ view: ChainView, remote: ChainTip, hashAt: (Int) -> BlockHash) -> (ForkSearch.Step, Int) {
        var search = view.forkSearch(toward: remote)
        var questions = 0
        while case .compare(let height) = search.step {
            questions += 1
            search.feed(hashAt(height))
        }
        return (search.step, questions)
    }

    func testConnectingRequiresTheTipAsParent() {
        var view = ChainView(nextHeight: 10, parent: hash(9))
        XCTAssertEqual(view.tip, ChainTip(height: 9, hash: hash(9)))
        XCTAssertFalse(view.connect(hash(10), previous: hash(8)), "does not build on the tip")
        XCTAssertTrue(view.connect(hash(10), previous: hash(9)))
        XCTAssertEqual(view.tip, ChainTip(height: 10, hash: hash(10)))
        XCTAssertEqual(view.nextHeight, 11)
    }

    func testAGenesisViewAcceptsItsFirstBlock() {
        var view = ChainView(nextHeight: 0, parent: nil)
        XCTAssertNil(view.tip)
        XCTAssertEqual(view.forkSearch(toward: ChainTip(height: 5, hash: hash(5))).step, .found(height: -1))
        XCTAssertTrue(view.connect(hash(0), previous: .zero))
        XCTAssertEqual(view.tip?.height, 0)
    }

    func testAnExtendingTipNeedsNoQuestionWhenItIsTheBackendTip() {
        let view = self.view(from: 1, to: 5)
        let (step, questions) = search(view, remote: ChainTip(height: 5, hash: hash(5))) { self.hash($0) }
        XCTAssertEqual(step, .found(height: 5))
        XCTAssertEqual(questions, 0)
    }

    func testALongerBackendChainIsCheckedAtOurTip() {
        let view = self.view(from: 1, to: 5)
        let (step, questions) = search(view, remote: ChainTip(height: 8, hash: hash(8))) { self.hash($0) }
        XCTAssertEqual(step, .found(height: 5), "nothing to rewind; connect 6...8")
        XCTAssertEqual(questions, 1)
    }

    func testAReorgOfDepthTwoFindsTheForkAndRewindsTipFirst() {
        var view = self.view(from: 1, to: 10)
        // The backend replaced 9 and 10 and built 11 on its branch.
        let backend: (Int) -> BlockHash = { $0 <= 8 ? self.hash($0) : self.hash($0, branch: 1) }
        let (step, questions) = search(view, remote: ChainTip(height: 11, hash: backend(11))) { backend($0) }
        XCTAssertEqual(step, .found(height: 8))
        XCTAssertEqual(questions, 3, "asked at 10, 9, 8")
        let disconnected = view.rewind(toHeight: 8)
        XCTAssertEqual(disconnected, [ChainTip(height: 10, hash: hash(10)), ChainTip(height: 9, hash: hash(9))])
        XCTAssertEqual(view.tip, ChainTip(height: 8, hash: hash(8)))
        XCTAssertTrue(view.connect(backend(9), previous: hash(8)))
    }

    func testAShorterBackendChainRewindsToItsTip() {
        var view = self.view(from: 1, to: 10)
        let (step, questions) = search(view, remote: ChainTip(height: 8, hash: hash(8))) { self.hash($0) }
        XCTAssertEqual(step, .found(height: 8), "invalidateblock of 9: the tip went back")
        XCTAssertEqual(questions, 0)
        XCTAssertEqual(view.rewind(toHeight: 8).map(\.height), [10, 9])
    }

    func testAShorterCompetingBranchForksBelowItsTip() {
        let view = self.view(from: 1, to: 10)
        let backend: (Int) -> BlockHash = { $0 <= 6 ? self.hash($0) : self.hash($0, branch: 2) }
        let (step, _) = search(view, remote: ChainTip(height: 8, hash: backend(8))) { backend($0) }
        XCTAssertEqual(step, .found(height: 6))
    }

    func testAForkBelowTheWindowIsReported() {
        let view = self.view(from: 1, to: 20, window: 5)
        XCTAssertEqual(view.lowestHeight, 16)
        XCTAssertNil(view.hash(atHeight: 15), "older hashes were dropped")
        let backend: (Int) -> BlockHash = { self.hash($0, branch: 3) }
        let (step, questions) = search(view, remote: ChainTip(height: 20, hash: backend(20))) { backend($0) }
        XCTAssertEqual(step, .beyondWindow)
        XCTAssertEqual(questions, 4, "19...16 asked; 20 was the backend's own tip")
    }

    func testStartingParentIsTheFloorOfTheSearch() {
        let view = ChainView(nextHeight: 100, parent: hash(99))
        let (step, _) = search(view, remote: ChainTip(height: 120, hash: hash(120))) { self.hash($0) }
        XCTAssertEqual(step, .found(height: 99), "connect from the birthday")
        let (deep, _) = search(view, remote: ChainTip(height: 98, hash: hash(98, branch: 4))) { self.hash($0, branch: 4) }
        XCTAssertEqual(deep, .beyondWindow)
    }
}
