@testable import PeerNode
import Transport
import XCTest

/// The pure parts: line splitting with its limit, protocol versions, fee rates.
final class ElectrumParsingTests: XCTestCase {
    func testLinesAreSplitAcrossChunksAndCRLFIsTolerated() throws {
        var splitter = ElectrumLineSplitter(maxLineBytes: 16)
        XCTAssertEqual(try splitter.append(Array("{\"a\":".utf8)), [])
        XCTAssertEqual(try splitter.append(Array("1}\r\n{}\n{".utf8)), [Array("{\"a\":1}".utf8), Array("{}".utf8)])
        XCTAssertEqual(try splitter.append(Array("}\n".utf8)), [Array("{}".utf8)])
    }

    func testALineOverTheLimitIsRefusedBeforeItsNewlineArrives() throws {
        var splitter = ElectrumLineSplitter(maxLineBytes: 8)
        XCTAssertEqual(try splitter.append(Array("12345678".utf8)), [], "exactly the limit is fine")
        XCTAssertThrowsError(try splitter.append(Array("9".utf8))) { XCTAssertEqual($0 as? ElectrumError, .lineTooLong(limit: 8)) }
        var complete = ElectrumLineSplitter(maxLineBytes: 8)
        XCTAssertThrowsError(try complete.append(Array("123456789\n".utf8))) {
            XCTAssertEqual($0 as? ElectrumError, .lineTooLong(limit: 8))
        }
    }

    func testProtocolVersions() {
        XCTAssertEqual(ElectrumProtocolVersion("1.4"), ElectrumProtocolVersion(major: 1, minor: 4))
        XCTAssertEqual(ElectrumProtocolVersion("1.4.2"), ElectrumProtocolVersion(major: 1, minor: 4))
        XCTAssertNil(ElectrumProtocolVersion("1"))
        XCTAssertNil(ElectrumProtocolVersion("1.x"))
        XCTAssertNil(ElectrumProtocolVersion("1..4"))
        XCTAssertLessThan(ElectrumProtocolVersion("1.2")!, ElectrumProtocolVersion.minimum)
        XCTAssertLessThan(ElectrumProtocolVersion("1.4")!, ElectrumProtocolVersion("1.10")!, "numeric, not textual")
    }

    /// ElectrumX prints small rates the way Python does (`2e-05`); the amount is exact.
    func testFeeRatesAreExactSatoshisPerKvB() throws {
        let method = "blockchain.estimatefee"
        XCTAssertEqual(try ElectrumDecoding.feeRate(.number("2e-05"), method: method), 2_000)
        XCTAssertEqual(try ElectrumDecoding.feeRate(.number("0.00001"), method: method), 1_000)
        XCTAssertEqual(try ElectrumDecoding.feeRate(.number("0.00012345"), method: method), 12_345)
        XCTAssertEqual(try ElectrumDecoding.feeRate(.number("0.000010001"), method: method), 1_001, "rounded up")
        XCTAssertNil(try ElectrumDecoding.feeRate(.number("-1"), method: method), "the protocol's 'no estimate'")
        XCTAssertNil(try ElectrumDecoding.feeRate(.number("-1e-9"), method: method), "any negative")
        XCTAssertThrowsError(try ElectrumDecoding.feeRate(.string("0.0001"), method: method))
        XCTAssertThrowsError(try ElectrumDecoding.feeRate(.number("1e300"), method: method), "out of range")
        XCTAssertThrowsError(try ElectrumDecoding.feeRate(.number("46116860184.27387904"), method: method), "Int64.max / 2 sat")
    }
}

/// Which servers get the filler call (`ElectrumPadding`): ElectrumX 2 and later only.
final class ElectrumPaddingTests: XCTestCase {
    func testOnlyElectrumXTwoAndLaterHoldShortReplies() {
        XCTAssertTrue(ElectrumPadding.holdsShortReplies("ElectrumX 2.0.0"))
        XCTAssertTrue(ElectrumPadding.holdsShortReplies("ElectrumX 3.1"))
        XCTAssertFalse(ElectrumPadding.holdsShortReplies("ElectrumX 1.16.0"))
        XCTAssertFalse(ElectrumPadding.holdsShortReplies("Fulcrum 1.9.8"))
        XCTAssertFalse(ElectrumPadding.holdsShortReplies("electrs/0.10.5"))
        XCTAssertFalse(ElectrumPadding.holdsShortReplies("ElectrumX"))
    }
}
