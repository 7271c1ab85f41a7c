import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// `SwapListRequest` and `SwapList` (docs/SWAP1.md): the fields and their limits, decoded
/// strictly. (What a peer of before these messages answers, and how the asker reads it:
/// `SwapListFetcherTests`.)
final class SwapListCodecTests: XCTestCase {
    private func decode(_ text: String) throws -> SwapMessage { try SwapMessage(bytes: Array(text.utf8)) }

    func testTheRequestNeedsItsDirectionAndReadsAnOptionalOffset() throws {
        XCTAssertEqual(try decode(#"{"type":"SwapListRequest","request_id":"a","direction":"onchain_to_ln"}"#),
                       .swapListRequest(SwapListRequest(requestID: "a")))
        XCTAssertEqual(try decode(#"{"type":"SwapListRequest","request_id":"a","direction":"onchain_to_ln","offset":32}"#),
                       .swapListRequest(SwapListRequest(requestID: "a", offset: 32)))
        XCTAssertOffersError(.missingField("direction")) { try self.decode(#"{"type":"SwapListRequest","request_id":"a"}"#) }
        XCTAssertOffersError(.unsupportedDirection) {
            try self.decode(#"{"type":"SwapListRequest","request_id":"a","direction":"sideways"}"#)
        }
        XCTAssertOffersError(.valueOutOfRange(field: "offset")) {
            try self.decode(#"{"type":"SwapListRequest","request_id":"a","direction":"onchain_to_ln","offset":-1}"#)
        }
        XCTAssertOffersError(.valueOutOfRange(field: "offset")) {
            try self.decode(#"{"type":"SwapListRequest","request_id":"a","direction":"onchain_to_ln","offset":100001}"#)
        }
        // A reverse list decodes (a later direction), and the answerer refuses it.
        XCTAssertEqual(try decode(#"{"type":"SwapListRequest","request_id":"a","direction":"ln_to_onchain"}"#),
                       .swapListRequest(SwapListRequest(requestID: "a", direction: .lightningToOnchain)))
    }

    func testTheListKeepsEveryEntrysSignedPartsAndRefusesBadEntries() throws {
        let entry = Fixtures.swapListEntry(.provider)
        let list = SwapList(requestID: "r", offset: 0, total: 1, swaps: [entry])
        guard case .swapList(let decoded) = try SwapMessage(bytes: list.encoded) else { return XCTFail("not a SwapList") }
        XCTAssertEqual(decoded.swaps.first?.role, .provider)
        XCTAssertNoThrow(try decoded.swaps.first?.accept.verify(by: Fixtures.provider.pubky), "the accept's signature survives")
        XCTAssertNoThrow(try decoded.swaps.first?.quote.verify(by: Fixtures.provider.pubky), "the quote's signature survives")
        XCTAssertEqual(decoded.swaps.first?.request, entry.request)

        func listed(_ edit: (inout [String: JSONValue]) -> Void) throws -> [UInt8] {
            guard case .object(var members) = entry.json else { throw OffersError.notAnObject }
            edit(&members)
            var list = SwapList(requestID: "r", offset: 0, total: 1, swaps: []).json
            if case .object(var top) = list {
                top["swaps"] = .array([.object(members)])
                list = .object(top)
            }
            return list.canonicalBytes
        }
        XCTAssertOffersError(.valueOutOfRange(field: "role")) {
            try SwapMessage(bytes: try listed { $0["role"] = .string("payee") })
        }
        XCTAssertOffersError(.missingField("request")) { try SwapMessage(bytes: try listed { $0["request"] = nil }) }
        // A reverse accept is not a submarine swap's.
        XCTAssertOffersError(.missingField("direction")) {
            try SwapMessage(bytes: try listed { $0["accept"] = Signed(signing: Fixtures.accept(), with: Fixtures.provider).json })
        }
        let tooMany = SwapList(requestID: "r", offset: 0, total: 17, swaps: Array(repeating: entry, count: 17))
        XCTAssertOffersError(.valueOutOfRange(field: "swaps")) { try SwapMessage(bytes: tooMany.encoded) }
        let reverse = #"{"type":"SwapList","request_id":"r","direction":"ln_to_onchain","offset":0,"total":0,"swaps":[]}"#
        XCTAssertOffersError(.unsupportedDirection) { try self.decode(reverse) }
    }

    /// A full page of the largest entries stays under one frame's plaintext (65,519 bytes):
    /// the answerer stops adding entries at `maximumEncodedBytes`.
    func testAPageOfTypicalEntriesFitsOneFrame() {
        let page = SwapList(requestID: String(repeating: "r", count: 128), offset: 0, total: 16,
                            swaps: Array(repeating: Fixtures.swapListEntry(.client, .p2wsh), count: SwapList.maximumEntries))
        XCTAssertLessThan(page.encoded.count, SwapList.maximumEncodedBytes)
        XCTAssertLessThan(SwapList.maximumEncodedBytes + 1_024, 65_519)
    }
}
