import Lightning
@testable import PeerNode
import XCTest

/// Issue 15: a payment the client's LND does not know is sent again only when the failed
/// send provably never left (a refused connection); an answer lost on the way back, a
/// 409 or a broken stream may hide a payment LND is still starting.
final class ClientResendRuleTests: XCTestCase {
    private let url = "https://127.0.0.1:8080"

    func testOnlyARefusedConnectionAllowsASecondSend() {
        XCTAssertTrue(ClientResendRule.maySendAgain(
            after: .connectionRefused(url: url, reason: "uv_tcp_connect failed: connection refused (ECONNREFUSED)")))
        let mayHaveArrived: [LightningBackendError] = [
            .unreachable(url: url, reason: "HTTP exchange timed out after 10000 ms"),
            .unreachable(url: url, reason: "connection closed by the server before a response"),
            .paymentStatusUnknown(url: url, reason: "the payment stream broke after LND accepted the request"),
            .lnd(code: 6, message: "payment is in transition", httpStatus: 409),
            .lnd(code: 2, message: "routerrpc server shutting down", httpStatus: 500),
            .malformedResponse(url: url, reason: "HTTP 502 without an LND error body"),
        ]
        for error in mayHaveArrived {
            XCTAssertFalse(ClientResendRule.maySendAgain(after: error), "\(error)")
        }
    }

    func testARefusedConnectionIsStillUnreachable() {
        let refused = LightningBackendError.connectionRefused(url: url, reason: "ECONNREFUSED")
        XCTAssertTrue(refused.isUnreachable)
        XCTAssertTrue(LightningBackendError.unreachable(url: url, reason: "timeout").isUnreachable)
        XCTAssertFalse(LightningBackendError.lnd(code: 5, message: "payment isn't initiated", httpStatus: 404).isUnreachable)
        XCTAssertTrue(refused.description.hasPrefix("Lightning node at \(url) is unreachable: "), refused.description)
        XCTAssertTrue(refused.description.contains("is LND running"), refused.description)
    }
}
