@testable import PeerNode
import Transport
import XCTest

/// A JSON-RPC batch's answers, read from Bitcoin Core v31's own (`batch_*` fixtures) and
/// from bodies that break the rules a reader relies on.
final class JSONRPCBatchTests: XCTestCase {
    private func answers(_ body: String, status: Int = 200, firstID: UInt64 = 1,
                         count: Int) -> Result<[Result<JSONValue, ChainBackendError>], ChainBackendError> {
        JSONRPCEnvelope.batchResponse(status: status, body: Array(body.utf8), firstID: firstID, count: count)
    }

    func testCoresAnswersToA1_0BatchAreEachCallsResultOrError() throws {
        let fixture = try CoreFixture.load("batch_1_0")
        let replies = try answers(fixture.responseBodyRaw, status: fixture.httpStatus, count: 3).get()
        XCTAssertEqual(replies, [.success(.integer(202)), .failure(.rpc(code: -32601, message: "Method not found")),
                                 .failure(.rpc(code: -8, message: "Block height out of range"))])
    }

    func testCoresAnswersToMixedVersionsAreReadAlike() throws {
        let fixture = try CoreFixture.load("batch_mixed_versions")
        let replies = try answers(fixture.responseBodyRaw, status: fixture.httpStatus, count: 2).get()
        XCTAssertEqual(replies, Array(repeating: .failure(.rpc(code: -32601, message: "Method not found")), count: 2))
    }

    func testTheRequestNumbersItsCallsFromTheFirstID() throws {
        let body = JSONRPCEnvelope.batchRequest([("getblockcount", []), ("getblockhash", [.integer(7)])], firstID: 41)
        let parsed = try JSONParser.parse(body)
        XCTAssertEqual(parsed.arrayValue?.map { $0["id"] }, [.integer(41), .integer(42)])
        XCTAssertEqual(parsed.arrayValue?.map { $0["method"]?.stringValue }, ["getblockcount", "getblockhash"])
        XCTAssertEqual(parsed.arrayValue?.last?["params"], .array([.integer(7)]))
    }

    func testRepliesAreMatchedByIDNotByPlace() throws {
        let replies = try answers(#"[{"result":"b","error":null,"id":8},{"result":"a","error":null,"id":7}]"#,
                                  firstID: 7, count: 2).get()
        XCTAssertEqual(replies, [.success(.string("a")), .success(.string("b"))])
    }

    func testABatchAnswerThatDoesNotAnswerEachCallOnceIsMalformed() {
        let bodies = [
            #"[{"result":1,"error":null,"id":1}]"#,                                      // one left out
            #"[{"result":1,"error":null,"id":1},{"result":1,"error":null,"id":1}]"#,     // one twice
            #"[{"result":1,"error":null,"id":1},{"result":1,"error":null,"id":9}]"#,     // an id never sent
            #"[{"result":1,"error":null,"id":1},{"result":1,"error":null}]"#,            // no id
            #"[{"result":1,"error":null,"id":1},7]"#,                                     // not an object
            #"{"result":[1,2],"error":null,"id":1}"#,                                     // one answer
            #"not json"#,
        ]
        for body in bodies {
            guard case .failure(.malformedResponse) = answers(body, count: 2) else {
                return XCTFail("accepted: \(body)")
            }
        }
    }

    func testCoreRefusingTheWholeBatchIsTheBatchsFailure() throws {
        let fixture = try CoreFixture.load("error_parse_error")
        guard case .failure(.rpc(let code, _)) = answers(fixture.responseBodyRaw, status: fixture.httpStatus, count: 2) else {
            return XCTFail("a parse error was not the batch's failure")
        }
        XCTAssertEqual(code, -32700)
    }
}
