import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `submitpackage`: a parent refused alone for its fee gets in with a child paying for it;
/// a package whose combined rate is still too low is refused whole.
final class PackageSubmissionTests: MatureChainTestCase {
    private func family(parentFee: Int64, childFee: Int64) throws -> (parent: Transaction, child: Transaction) {
        let coin = try coinbase(of: chain, atHeight: 1)
        let parent = try wallet.spend(coin.outpoint, value: coin.value, fee: parentFee)
        let child = try wallet.spend(OutPoint(txid: parent.txid, index: 0), value: coin.value - parentFee, fee: childFee)
        return (parent, child)
    }

    func testAChildCarriesItsZeroFeeParentAboveARaisedMinimum() throws {
        chain.setMempoolMinFee(5_000)
        let (parent, child) = try family(parentFee: 0, childFee: 5_000)
        XCTAssertEqual(rejection { try chain.submit(parent) }?.reason, "mempool min fee not met")

        let submission = try chain.submitPackage([parent, child], maxFeeRate: 0)
        XCTAssertEqual(submission.message, "success")
        XCTAssertEqual(submission.results.map(\.error), [nil, nil])
        let rate = 5_000 * 1_000 / Int64(parent.virtualSize + child.virtualSize)
        XCTAssertEqual(submission.results.map(\.effectiveFeeRate), [rate, rate])
        XCTAssertEqual(submission.results[0].effectiveIncludes, [parent.wtxid, child.wtxid])
        XCTAssertEqual(Set(chain.mempoolEntries().map(\.entry.txid)), [parent.txid, child.txid])
        try chain.mine(1, to: wallet.script)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
        try assertKernelAgrees(chain)
    }

    func testAPackageStillBelowTheMinimumIsRefusedWhole() throws {
        chain.setMempoolMinFee(5_000)
        let (parent, child) = try family(parentFee: 0, childFee: 600)
        let submission = try chain.submitPackage([parent, child], maxFeeRate: 0)
        XCTAssertEqual(submission.message, "transaction failed")
        XCTAssertEqual(submission.results[0].error?.hasPrefix("mempool min fee not met"), true)
        XCTAssertNotNil(submission.results[1].error)
        XCTAssertTrue(chain.mempoolEntries().isEmpty)
    }

    /// A parent that pays for itself is accepted alone and judged on its own rate.
    func testAParentPayingItsWayIsAcceptedAlone() throws {
        let (parent, child) = try family(parentFee: 2_000, childFee: 2_000)
        let submission = try chain.submitPackage([parent, child], maxFeeRate: 0)
        XCTAssertEqual(submission.message, "success")
        XCTAssertEqual(submission.results[0].effectiveIncludes, [parent.wtxid])
        XCTAssertEqual(submission.results[0].effectiveFeeRate, 2_000 * 1_000 / Int64(parent.virtualSize))
    }
}
