import Bitcoin
import Transport
import XCTest
@testable import Lightning

/// The client's reading of LND's messages, from bodies written as LND documents them
/// (api.lightning.community), including the fields and spellings the hub never sends.
final class LNDMessageDecodingTests: XCTestCase {
    private let url = "http://127.0.0.1:8080"
    private let hash = SHA256.hash([UInt8](repeating: 7, count: 32))

    private func json(_ text: String) throws -> JSONValue {
        try LNDJSON.parse(Array(text.utf8))
    }

    func testInvoiceWithAcceptedHTLC() throws {
        let body = try json("""
            {"memo":"swap","r_preimage":null,"r_hash":"\(LNDBase64.encode(hash))","value":"250000",
             "value_msat":"250000000","settled":false,"creation_date":"1767225600","settle_date":"0",
             "payment_request":"lnbcrt2500u1...","description_hash":null,"expiry":"600","fallback_addr":"",
             "cltv_expiry":"144","route_hints":[],"private":false,"add_index":"3","settle_index":"0",
             "amt_paid":"0","amt_paid_sat":"0","amt_paid_msat":"0","state":"ACCEPTED",
             "htlcs":[{"chan_id":"123","htlc_index":"0","amt_msat":"250000000","accept_height":100,
                       "accept_time":"1767225601","resolve_time":"0","expiry_height":284,"state":"ACCEPTED",
                       "custom_records":{},"mpp_total_amt_msat":"250000000","amp":null}],
             "features":{},"is_keysend":false,"payment_addr":"","is_amp":false,"amp_invoice_state":{}}
            """)
        let status = try LNDRESTClient.invoiceStatus(from: body, url: url)
        XCTAssertEqual(status.paymentHash, hash)
        XCTAssertEqual(status.state, .accepted)
        XCTAssertEqual(status.amountMsat, 250_000_000)
        XCTAssertNil(status.preimage)
        XCTAssertEqual(status.cltvExpiry, 144)
        XCTAssertEqual(status.htlcs, [InvoiceStatus.HTLC(amountMsat: 250_000_000, acceptHeight: 100, expiryHeight: 284,
                                                         state: .accepted)])
    }

    /// LND writes 64-bit integers as strings, but a proxy or an older gateway may write
    /// numbers; both are read. A missing hash or an unknown state is not guessed at.
    func testInvoiceNumbersEitherWayAndMissingFieldsRefused() throws {
        let numbers = try json("{\"r_hash\":\"\(LNDBase64.encodeURLSafe(hash))\",\"state\":\"OPEN\",\"value_msat\":1000}")
        XCTAssertEqual(try LNDRESTClient.invoiceStatus(from: numbers, url: url).amountMsat, 1000)
        XCTAssertThrowsError(try LNDRESTClient.invoiceStatus(from: try json("{\"state\":\"OPEN\"}"), url: url))
        let unknownState = try json("{\"r_hash\":\"\(LNDBase64.encode(hash))\",\"state\":\"HELD\"}")
        XCTAssertThrowsError(try LNDRESTClient.invoiceStatus(from: unknownState, url: url))
    }

    func testPaymentStatuses() throws {
        let preimage = [UInt8](repeating: 7, count: 32)
        func payment(_ status: String, preimage: String = String(repeating: "0", count: 64),
                     reason: String = "FAILURE_REASON_NONE") throws -> PaymentUpdate {
            try LNDRESTClient.paymentUpdate(from: try json("""
                {"payment_hash":"\(hash.hex)","value":"1000","payment_preimage":"\(preimage)","value_sat":"1000",
                 "value_msat":"1000000","status":"\(status)","fee_sat":"1","fee_msat":"1100","htlcs":[],
                 "payment_index":"9","failure_reason":"\(reason)"}
                """), url: url)
        }
        // INITIATED is LND 0.18's status before the first HTLC.
        XCTAssertEqual(try payment("INITIATED").status, .inFlight)
        XCTAssertEqual(try payment("IN_FLIGHT").status, .inFlight)
        let succeeded = try payment("SUCCEEDED", preimage: preimage.hex)
        XCTAssertEqual(succeeded.status, .succeeded(preimage: preimage))
        XCTAssertEqual(succeeded.feeMsat, 1100)
        XCTAssertEqual(succeeded.amountMsat, 1_000_000)
        XCTAssertEqual(try payment("FAILED", reason: "FAILURE_REASON_TIMEOUT").status, .failed(.timeout))
        XCTAssertEqual(try payment("FAILED", reason: "FAILURE_REASON_SOMETHING_NEW").status,
                       .failed(.other("FAILURE_REASON_SOMETHING_NEW")))
        // A success without the preimage of its hash is not a proof of payment.
        XCTAssertThrowsError(try payment("SUCCEEDED"))
    }

    /// `htlcs` as LND 0.18 streams them: a failed attempt over three hops and one in
    /// flight, with every field LND writes (and one it may add later). The client keeps
    /// each attempt's status and its route's totals, skips the rest.
    func testPaymentAttemptsAreReadWithTheirRouteTimeLock() throws {
        let hop = """
            {"chan_id":"869620318525128705","chan_capacity":"0","amt_to_forward":"1000","fee":"0","expiry":912,
             "amt_to_forward_msat":"1000000","fee_msat":"0","pub_key":"02aa","tlv_payload":true,"mpp_record":null,
             "amp_record":null,"custom_records":{},"metadata":"","blinding_point":"","encrypted_data":"",
             "total_amt_msat":"0"}
            """
        let body = try json("""
            {"payment_hash":"\(hash.hex)","value":"1000","payment_preimage":"\(String(repeating: "0", count: 64))",
             "value_sat":"1000","value_msat":"1000000","status":"IN_FLIGHT","fee_sat":"2","fee_msat":"2100",
             "creation_time_ns":"1767225600000000000","payment_index":"4","failure_reason":"FAILURE_REASON_NONE",
             "first_hop_custom_records":{},
             "htlcs":[
               {"attempt_id":"11","status":"FAILED","route":{"total_time_lock":1004,"total_fees":"3",
                 "total_amt":"1003","hops":[\(hop),\(hop),\(hop)],"total_fees_msat":"3000","total_amt_msat":"1003000",
                 "first_hop_amount_msat":"1003000","custom_channel_data":""},
                "attempt_time_ns":"1767225600100000000","resolve_time_ns":"1767225600900000000",
                "failure":{"code":"TEMPORARY_CHANNEL_FAILURE","channel_update":null,"htlc_msat":"1001000",
                           "onion_sha_256":"","cltv_expiry":0,"flags":0,"failure_source_index":1,"height":0},
                "preimage":""},
               {"attempt_id":"12","status":"IN_FLIGHT","route":{"total_time_lock":998,"total_fees":"2",
                 "total_amt":"1002","hops":[\(hop),\(hop)],"total_fees_msat":"2100","total_amt_msat":"1002100",
                 "first_hop_amount_msat":"1002100","custom_channel_data":"","a_field_of_a_later_lnd":[1]},
                "attempt_time_ns":"1767225601000000000","resolve_time_ns":"0","failure":null,"preimage":""}]}
            """)
        let update = try LNDRESTClient.paymentUpdate(from: body, url: url)
        XCTAssertEqual(update.attempts, [
            PaymentAttempt(status: .failed, totalTimeLock: 1004, totalAmountMsat: 1_003_000, totalFeesMsat: 3000),
            PaymentAttempt(status: .inFlight, totalTimeLock: 998, totalAmountMsat: 1_002_100, totalFeesMsat: 2100),
        ])
        // Only the HTLC still out can keep the money: the failed one's later lock does not count.
        XCTAssertEqual(update.lockedUntilHeight, 998)

        // An attempt with an unknown status or without its route's time lock is not guessed at.
        for broken in ["{\"status\":\"LOST\",\"route\":{\"total_time_lock\":5}}", "{\"status\":\"IN_FLIGHT\"}",
                       "{\"status\":\"IN_FLIGHT\",\"route\":{\"total_time_lock\":-1}}"] {
            let payment = try json("""
                {"payment_hash":"\(hash.hex)","status":"IN_FLIGHT","htlcs":[\(broken)]}
                """)
            XCTAssertThrowsError(try LNDRESTClient.paymentUpdate(from: payment, url: url), broken)
        }
        let none = try LNDRESTClient.paymentUpdate(from: try json("{\"payment_hash\":\"\(hash.hex)\",\"status\":\"INITIATED\",\"htlcs\":[]}"), url: url)
        XCTAssertNil(none.lockedUntilHeight)
    }

    func testPlainHTTPToLNDsTLSPortSaysToSetTheCertificate() {
        let client = LNDRESTClient(configuration: .init(host: "127.0.0.1", port: 8080, macaroon: [1], network: .regtest),
                                   sleeper: NeverSleeper()) { _, _ in throw ByteStreamError.closed }
        // Go's net/http writes exactly this when plain HTTP reaches a TLS listener.
        let error = client.errorFrom(status: 400, body: Array("Client sent an HTTP request to an HTTPS server.\n".utf8))
        guard case .unreachable(_, let reason) = error else { return XCTFail("got \(error)") }
        XCTAssertTrue(reason.contains("lnd_tls_cert"), reason)
    }

    func testErrorBodies() {
        let client = LNDRESTClient(configuration: .init(host: "127.0.0.1", port: 8080, macaroon: [1], network: .regtest),
                                   sleeper: NeverSleeper()) { _, _ in throw ByteStreamError.closed }
        // Today's shape, and the older one that also had "error" as a string.
        XCTAssertEqual(client.errorFrom(status: 404, body: Array("{\"code\":5,\"message\":\"unable to locate invoice\",\"details\":[]}".utf8)),
                       .lnd(code: 5, message: "unable to locate invoice", httpStatus: 404))
        XCTAssertEqual(client.errorFrom(status: 500, body: Array("{\"error\":\"expected 1 macaroon, got 0\",\"code\":2,\"message\":\"expected 1 macaroon, got 0\",\"details\":[]}".utf8)),
                       .unauthorized(url: url, message: "expected 1 macaroon, got 0"))
        // A stream's error line.
        XCTAssertEqual(client.errorFrom(status: 200, body: Array("{\"error\":{\"code\":6,\"message\":\"invoice is already paid\",\"details\":[]}}".utf8)),
                       .lnd(code: 6, message: "invoice is already paid", httpStatus: 200))
        // A proxy's bare 401, and something that is not LND at all.
        XCTAssertEqual(client.errorFrom(status: 401, body: Array("Unauthorized".utf8)), .unauthorized(url: url, message: "HTTP 401"))
        XCTAssertEqual(client.errorFrom(status: 502, body: Array("<html>".utf8)),
                       .malformedResponse(url: url, reason: "HTTP 502 without an LND error body"))
    }
}

/// A sleeper for clients whose tests never wait.
struct NeverSleeper: Sleeper {
    func sleep(milliseconds: UInt64) async throws {
        throw CancellationError()
    }
}
