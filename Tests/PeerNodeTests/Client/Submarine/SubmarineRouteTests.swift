import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// What a contact's endpoints say it takes (`ContactRails`), and the submarine provider
/// among the offers (`SubmarineSelector`), as `pay` reads them.
final class SubmarineRouteTests: XCTestCase {
    private let payee = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x21, count: 32)))
    private let onchain = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

    func testALightningOnlyContactListsOnlyTheLightningRail() throws {
        let rails = ContactRails(endpoints: [.lightning(pubky: payee.pubky, network: "regtest")], network: .regtest)
        XCTAssertNil(rails.onchain)
        XCTAssertEqual(rails.lightning, payee.pubky)
        XCTAssertNoThrow(try rails.requireARail(contact: "erin", network: .regtest))
        XCTAssertEqual(rails.summary(contact: "erin", network: .regtest), "erin takes only Lightning")
    }

    func testAContactThatTakesBothListsBoth() throws {
        let address = try Address(onchain, network: .regtest)
        let endpoints = [Endpoint(type: Endpoint.onchainType, address: onchain, network: "regtest"),
                         Endpoint.lightning(pubky: payee.pubky, network: "regtest")]
        let rails = ContactRails(endpoints: endpoints, network: .regtest)
        XCTAssertEqual(rails.onchain, address)
        XCTAssertEqual(rails.lightning, payee.pubky)
        XCTAssertTrue(rails.summary(contact: "bob", network: .regtest).contains(onchain))
    }

    func testEndpointsOnAnotherNetworkAreNoRail() {
        let rails = ContactRails(endpoints: [.lightning(pubky: payee.pubky, network: "mainnet"),
                                             Endpoint(type: Endpoint.onchainType, address: onchain, network: "mainnet")],
                                 network: .regtest)
        XCTAssertThrowsError(try rails.requireARail(contact: "eve", network: .regtest)) { error in
            XCTAssertTrue("\(error)".contains("lightning on mainnet"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was paid"), "\(error)")
        }
    }

    func testTheCheapestProviderThatTakesTheAmountIsChosen() throws {
        let cheap = offer(seed: 0x31, baseFee: 10, ppm: 1_000, claimFee: 300, range: 10_000...1_000_000)
        let dear = offer(seed: 0x32, baseFee: 100, ppm: 5_000, claimFee: 300, range: 10_000...1_000_000)
        let tooSmall = offer(seed: 0x33, baseFee: 0, ppm: 0, claimFee: 0, range: 10_000...15_000)
        let reverseOnly = offer(seed: 0x34, baseFee: 0, ppm: 0, claimFee: 0, range: nil)
        let route = SubmarineSelector(amountSat: 20_000, lockFeeSat: 154).rank([dear, tooSmall, cheap, reverseOnly])
        XCTAssertEqual(route.ranked.first?.provider.contact.name, "0x31")
        XCTAssertEqual(route.ranked.map(\.provider.contact.name), ["0x31", "0x32"])
        XCTAssertEqual(route.ranked.first?.serviceFeeSat, 10 + 20)
        XCTAssertEqual(route.ranked.first?.lockAmountSat, 20_000 + 30 + 300)
        XCTAssertEqual(route.ranked.first?.spendSat, 20_000 + 30 + 300 + 154)
        XCTAssertEqual(Set(route.skipped.map(\.contact.name)), ["0x33", "0x34"])
    }

    private func offer(seed: UInt8, baseFee: Int64, ppm: Int64, claimFee: Int64, range: ClosedRange<Int64>?) -> ProviderOffer {
        let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: seed, count: 32)))
        let terms = range.map {
            [DirectionTerms(direction: .lightningToOnchain, minAmountSat: 10_000, maxAmountSat: 1_000_000, baseFeeSat: 0,
                            feePPM: 0, onchainFeeSat: 500, requiredConfirmations: 1, htlcTimeoutBlocks: 144),
             DirectionTerms(direction: .onchainToLightning, minAmountSat: $0.lowerBound, maxAmountSat: $0.upperBound,
                            baseFeeSat: baseFee, feePPM: ppm, onchainFeeSat: claimFee, requiredConfirmations: 1,
                            htlcTimeoutBlocks: 144)]
        } ?? []
        let body = Offer(requestID: "r", offerID: "o\(seed)", providerPubky: identity.pubky, network: "regtest",
                         directions: terms.isEmpty ? ["ln_to_onchain"] : ["ln_to_onchain", "onchain_to_ln"],
                         minAmountSat: 10_000, maxAmountSat: 1_000_000, baseFeeSat: 0, feePPM: 0, onchainFeeSat: 500,
                         feeRateSatPerVByte: 2, feeRateSatPerKvB: 2_000, requiredConfirmations: 1, htlcTimeoutBlocks: 144,
                         validUntilUnix: 2_000_000_000, features: ["taproot_boltz"], directionTerms: terms)
        let contact = Offers.Contact(pubky: identity.pubky, host: "h", port: 1, name: String(format: "0x%02x", seed))
        return ProviderOffer(contact: contact, offer: Signed(signing: body, with: identity))
    }
}
