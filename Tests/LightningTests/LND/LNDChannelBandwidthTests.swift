import Lightning
import XCTest

/// The node's reading of what LND sends on one channel, against LND's own arithmetic
/// (`lnwallet.LightningChannel.availableBalance` with `FeeBuffer`, `CalcFeeBuffer`), worked
/// by hand for the figures below.
final class LNDChannelBandwidthTests: XCTestCase {
    /// A channel the node opened, anchors, 2,500 sat/kw, no HTLC: `local_balance` is its side
    /// of 500,000 sat less the commitment fee (2,500 × 1,124 / 1,000 = 2,810 sat) and the
    /// anchors (660), 496,530 sat. LND adds the fee back (its view starts before the fee),
    /// takes the reserve (5,000) and a buffer of 2 × 2,500 × (1,124 + 172) / 1,000 = 6,480 sat:
    /// 496,530 + 2,810 − 5,000 − 6,480 = 487,860 sat.
    func testAFundersChannelKeepsTheReserveAndTheFeeBuffer() {
        let funder = LNDChannelBandwidth.Funder(commitFeeSat: 2_810, commitWeight: 1_124, feePerKw: 2_500)
        XCTAssertEqual(funder.bufferSat, 6_480)
        XCTAssertEqual(LNDChannelBandwidth(localSat: 496_530, reserveSat: 5_000, funder: funder).spendableSat, 487_860)
        // With one HTLC already on the commitment (1,296 wu, a 3,240 sat fee), the buffer is
        // 2 × 2,500 × 1,468 / 1,000 = 7,340 sat.
        let busy = LNDChannelBandwidth.Funder(commitFeeSat: 3_240, commitWeight: 1_296, feePerKw: 2_500)
        XCTAssertEqual(busy.bufferSat, 7_340)
        XCTAssertEqual(LNDChannelBandwidth(localSat: 400_000, reserveSat: 5_000, funder: busy).spendableSat,
                       400_000 + 3_240 - 5_000 - 7_340)
        // LND's floor rate, 253 sat/kw: 2 × 253 × 1,296 / 1,000 = 655.776, rounded down.
        XCTAssertEqual(LNDChannelBandwidth.Funder(commitFeeSat: 284, commitWeight: 1_124, feePerKw: 253).bufferSat, 655)
    }

    /// The peer opened the channel: it pays the commitment, and only the reserve stays.
    func testAPeerFundedChannelKeepsOnlyTheReserve() {
        XCTAssertEqual(LNDChannelBandwidth(localSat: 20_000, reserveSat: 354).spendableSat, 19_646)
    }

    /// Too little to pay the buffer, or absurd fields, send nothing rather than wrap around.
    func testTooLittleOrAbsurdFieldsSendNothing() {
        let funder = LNDChannelBandwidth.Funder(commitFeeSat: 2_810, commitWeight: 1_124, feePerKw: 2_500)
        XCTAssertEqual(LNDChannelBandwidth(localSat: 3_000, reserveSat: 354, funder: funder).spendableSat, 0)
        XCTAssertEqual(LNDChannelBandwidth(localSat: 100, reserveSat: 354).spendableSat, 0)
        let absurd = LNDChannelBandwidth.Funder(commitFeeSat: 0, commitWeight: .max, feePerKw: .max)
        XCTAssertEqual(absurd.bufferSat, .max)
        XCTAssertEqual(LNDChannelBandwidth(localSat: .max, reserveSat: 0, funder: absurd).spendableSat, 0)
    }
}
