import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import XCTest

/// Audit L-2: the client waits for the larger of the provider's quoted confirmations and
/// its own minimum, on every network: a provider quoting 0 or 1 on mainnet does not make
/// the client claim (and reveal the preimage) from a lock one reorg can take away.
final class ClientConfirmationsTests: XCTestCase {
    func testTheClientsOwnMinimumConfirmationsApplyWhateverTheProviderQuotes() {
        let mainnet = ClientEngineConfiguration(network: .mainnet)
        XCTAssertFalse(mainnet.allowsZeroConf)
        XCTAssertEqual(mainnet.minimumConfirmations, 2)
        XCTAssertEqual(mainnet.requiredConfirmations(quoted: 0, lockAmountSat: 100_000), 2)
        XCTAssertEqual(mainnet.requiredConfirmations(quoted: 1, lockAmountSat: 100_000), 2)
        XCTAssertEqual(mainnet.requiredConfirmations(quoted: 3, lockAmountSat: 100_000), 3, "a provider may ask for more")
        for network in [Network.testnet, .signet] {
            let configuration = ClientEngineConfiguration(network: network, minimumConfirmations: 4)
            XCTAssertEqual(configuration.requiredConfirmations(quoted: 1, lockAmountSat: 100_000), 4, "\(network)")
        }
        let regtest = ClientEngineConfiguration(network: .regtest, allowsZeroConf: false)
        XCTAssertEqual(regtest.requiredConfirmations(quoted: 0, lockAmountSat: 100_000), 1)
        // Only this client's own zero-conf setting waits for fewer.
        let zeroConf = ClientEngineConfiguration(network: .regtest, allowsZeroConf: true, maxZeroConfSat: 50_000,
                                                 minimumConfirmations: 2)
        XCTAssertEqual(zeroConf.requiredConfirmations(quoted: 1, lockAmountSat: 50_000), 0)
        XCTAssertEqual(zeroConf.requiredConfirmations(quoted: 1, lockAmountSat: 50_001), 2)
    }
}
