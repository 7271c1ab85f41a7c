import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// Fee cap, dust floor, and when a bump may take from X (contact vs swap-out).
final class ClaimPolicyTests: XCTestCase {
    private let policy = ClaimPolicy.default
    private let vsize = 140
    private let lock: Int64 = 100_000

    private func plan(amount: Int64, purpose: ClaimPurpose = .payContact, rate: Int64, blocksLeft: Int = 100,
                      destination: DestinationType = .p2wpkh, lockValue: Int64? = nil) throws -> ClaimPlan {
        try policy.plan(lockValue: lockValue ?? lock, amount: amount, purpose: purpose, destination: destination,
                        virtualSize: vsize, feeRate: try FeeRate(satPerKvB: rate), blocksLeft: blocksLeft)
    }

    func testFirstClaimPaysXExactlyAndTheRestIsFee() throws {
        // The quote put X + ceil(140 × 2000 / 1000) = X + 280 in the lock.
        let result = try plan(amount: lock - 280, rate: 2000)
        XCTAssertEqual(result, ClaimPlan(outputValue: lock - 280, fee: 280, amountDrop: 0, virtualSize: vsize))
        // A lower rate leaves the fee where the lock put it: X never grows.
        XCTAssertEqual(try plan(amount: lock - 280, rate: 1000).fee, 280)
    }

    func testContactPaymentKeepsXUntilTheTimeoutIsNear() throws {
        let x = lock - 280
        // A bump to 5000 sat/kvB needs 700 sat; only 280 is above X.
        XCTAssertThrows(.feeBumpNeedsLowerAmount(requiredFee: 700, availableFee: 280, blocksLeft: 13, allowedWithin: 12),
                        try plan(amount: x, rate: 5000, blocksLeft: 13))
        let near = try plan(amount: x, rate: 5000, blocksLeft: 12)
        XCTAssertEqual(near, ClaimPlan(outputValue: lock - 700, fee: 700, amountDrop: 420, virtualSize: vsize))
        // The window is a policy parameter.
        let wide = ClaimPolicy(lowerAmountWithinBlocks: 50)
        XCTAssertEqual(try wide.plan(lockValue: lock, amount: x, purpose: .payContact, destination: .p2wpkh, virtualSize: vsize,
                                     feeRate: try FeeRate(satPerKvB: 5000), blocksLeft: 40).amountDrop, 420)
    }

    func testSwapOutMayAlwaysLowerX() throws {
        let result = try plan(amount: lock - 280, purpose: .swapOut, rate: 5000, blocksLeft: 140)
        XCTAssertEqual(result, ClaimPlan(outputValue: lock - 700, fee: 700, amountDrop: 420, virtualSize: vsize))
    }

    func testFeeCapIsTwentyPercentOfTheLock() throws {
        XCTAssertEqual(policy.feeCap(lockValue: lock), 20_000)
        // 20,000 sat for 140 vB is 142,858 sat/kvB (rounded up); just above it breaks the cap.
        XCTAssertEqual(try plan(amount: lock - 280, purpose: .swapOut, rate: 142_857).fee, 20_000)
        XCTAssertThrows(.feeAboveCap(fee: 20_001, cap: 20_000), try plan(amount: lock - 280, purpose: .swapOut, rate: 142_858))
        let strict = ClaimPolicy(feeCapPercent: 1)
        XCTAssertThrows(.feeAboveCap(fee: 1400, cap: 1000),
                        try strict.plan(lockValue: lock, amount: lock - 280, purpose: .swapOut, destination: .p2wpkh,
                                        virtualSize: vsize, feeRate: try FeeRate(satPerKvB: 10_000), blocksLeft: 13))
    }

    /// Audit M-3: near the timeout a swap-out's claim may pay all of X but dust (the user's
    /// own money, better than losing the lock to the refund); a contact payment keeps the cap.
    func testASwapOutNearTheTimeoutMayPayAllButDustInFees() throws {
        // 60,000 sat for 140 vB: far above 20 % of the lock.
        let rate: Int64 = 60_000_000 / 140 + 1
        XCTAssertThrows(.feeAboveCap(fee: 60_001, cap: 20_000),
                        try plan(amount: lock - 280, purpose: .swapOut, rate: rate, blocksLeft: 13))
        let near = try plan(amount: lock - 280, purpose: .swapOut, rate: rate, blocksLeft: 12)
        XCTAssertEqual(near, ClaimPlan(outputValue: lock - 60_001, fee: 60_001, amountDrop: 60_001 - 280, virtualSize: vsize))
        XCTAssertThrows(.feeAboveCap(fee: 60_001, cap: 20_000),
                        try plan(amount: lock - 280, purpose: .payContact, rate: rate, blocksLeft: 12))
        // Never below the destination's dust limit.
        let all = try FeeRate(satPerKvB: (lock - 293) * 1000 / 140 + 1)
        XCTAssertThrows(.feeAboveCap(fee: 99_708, cap: lock - 294),
                        try policy.plan(lockValue: lock, amount: lock - 280, purpose: .swapOut, destination: .p2wpkh,
                                        virtualSize: vsize, feeRate: all, blocksLeft: 1))
    }

    /// Audit M-3: a claim is bumped after 3 unconfirmed blocks, not only near the timeout,
    /// and at every block within the near-timeout window.
    func testAClaimIsBumpedAfterThreeUnconfirmedBlocksAndEveryBlockNearTheTimeout() {
        XCTAssertEqual(policy.bumpAfterUnconfirmedBlocks, 3)
        XCTAssertFalse(policy.bumpDue(unconfirmedBlocks: 0, blocksLeft: 100))
        XCTAssertFalse(policy.bumpDue(unconfirmedBlocks: 2, blocksLeft: 100))
        XCTAssertTrue(policy.bumpDue(unconfirmedBlocks: 3, blocksLeft: 100))
        XCTAssertTrue(policy.bumpDue(unconfirmedBlocks: 0, blocksLeft: 12))
        XCTAssertTrue(policy.bumpDue(unconfirmedBlocks: nil, blocksLeft: 100), "an older record: unknown age, due")
    }

    /// Audit L-9: a lock holding far more than X plus its fee (an over-lock) was refused:
    /// the surplus would have been a fee above the cap. The claim pays the fee at the rate
    /// and the rest, X plus the surplus, to the destination; a surplus within the cap stays fee.
    func testAnOverLockPaysTheSurplusToTheDestinationInsteadOfFailingTheClaim() throws {
        let over = try plan(amount: 50_000, rate: 1000)
        XCTAssertEqual(over, ClaimPlan(outputValue: lock - 140, fee: 140, amountDrop: 0, virtualSize: vsize,
                                       surplus: 50_000 - 140))
        XCTAssertEqual(try plan(amount: 50_000, purpose: .swapOut, rate: 1000).outputValue, lock - 140)
        // The fee the rate needs is still capped: no surplus makes a fee above the cap fine.
        XCTAssertThrows(.feeAboveCap(fee: 21_000, cap: 20_000), try plan(amount: 50_000, rate: 150_000))
        let within = try plan(amount: lock - 15_000, rate: 1000)
        XCTAssertEqual(within, ClaimPlan(outputValue: lock - 15_000, fee: 15_000, amountDrop: 0, virtualSize: vsize))
    }

    func testAmountsBelowDustAreRefused() throws {
        XCTAssertThrows(.amountBelowDust(amount: 293, dustLimit: 294), try plan(amount: 293, rate: 1000, lockValue: 500))
        XCTAssertThrows(.amountBelowDust(amount: 545, dustLimit: 546),
                        try plan(amount: 545, rate: 1000, destination: .p2pkh, lockValue: 700))
        XCTAssertEqual(try plan(amount: 294, rate: 0, lockValue: 294).outputValue, 294)
        // Lowering X for a bump stops at the dust limit: 360 − ceil(140 × 500 / 1000) = 290.
        XCTAssertThrows(.amountBelowDust(amount: 290, dustLimit: 294),
                        try plan(amount: 350, purpose: .swapOut, rate: 500, lockValue: 360))
    }

    func testAmountAboveTheLockIsRefused() {
        XCTAssertThrows(.amountExceedsLock(amount: lock + 1, lockValue: lock), try plan(amount: lock + 1, rate: 1000))
    }

    /// The builder signs what the policy planned, and reports the drop.
    func testBuilderReportsTheDrop() throws {
        let kernel = try makeKernelVerifier()
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let size = SpendSize.claim(contract: contract, destination: .p2tr)
            let firstRate = try FeeRate(satPerKvB: 2000)
            let x = Fixture.lockValue - firstRate.fee(forVirtualSize: size)
            let bumpRate = try FeeRate(satPerKvB: 10_000)
            var request = Fixture.claimRequest(contract, to: .p2tr, amount: x, purpose: .payContact, feeRate: bumpRate,
                                               blocksLeft: 30)
            XCTAssertThrowsError(try ClaimBuilder().build(request, claimKey: Fixture.claimKey, preimage: Fixture.preimage))
            request.blocksLeft = 10
            let bumped = try ClaimBuilder().build(request, claimKey: Fixture.claimKey, preimage: Fixture.preimage)
            XCTAssertEqual(bumped.plan.fee, bumpRate.fee(forVirtualSize: size))
            XCTAssertEqual(bumped.plan.amountDrop, x - bumped.plan.outputValue)
            XCTAssertEqual(bumped.transaction.outputs[0].value, bumped.plan.outputValue)
            XCTAssertTrue(try kernel.accepts(bumped.transaction, spending: contract.lockOutput(value: Fixture.lockValue)))
        }
    }
}
