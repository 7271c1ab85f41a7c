import Bitcoin
import HTLC
import Offers
import Transport
import XCTest

/// The capability descriptor's TXT records: what a provider writes, what a client reads,
/// and every malformed record refused, inside a real signed packet.
final class CapabilityDescriptorTests: XCTestCase {
    private let node = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x44, count: 32)))

    private let reverse = DirectionTerms(direction: .lightningToOnchain, minAmountSat: 14_730, maxAmountSat: 1_000_000,
                                         baseFeeSat: 300, feePPM: 1_000, onchainFeeSat: 373, requiredConfirmations: 1,
                                         htlcTimeoutBlocks: 144)
    private let submarine = DirectionTerms(direction: .onchainToLightning, minAmountSat: 10_000, maxAmountSat: 500_000,
                                           baseFeeSat: 300, feePPM: 1_000, onchainFeeSat: 190, requiredConfirmations: 1,
                                           htlcTimeoutBlocks: 144)

    private func signed(_ texts: [String]) throws -> SignedPacket {
        let records = texts.map { DNSRecord(name: DNSName.descriptorName(of: node.pubky), ttl: 60, data: .text($0)) }
        return try SignedPacket.sign(PeernodeRecords.nodePacket(node: node.pubky, hosts: ["127.0.0.1"], port: 9737, ttl: 60,
                                                                extra: records), by: node, timestamp: 1)
    }

    func testARoundTripThroughASignedPacket() throws {
        let descriptor = CapabilityDescriptor(network: "regtest", terms: [reverse, submarine],
                                              contractTypes: ["taproot_boltz", "p2wsh_v2"], expiresAtUnix: 1_700_000_600)
        XCTAssertEqual(descriptor.texts[0], "v=swap1;net=regtest;dir=ln_to_onchain;min=14730;max=1000000;base=300;ppm=1000;"
                       + "fee=373;conf=1;timeout=144;ct=taproot_boltz,p2wsh_v2;exp=1700000600")
        let packet = try SignedPacket.sign(PeernodeRecords.nodePacket(node: node.pubky, hosts: ["127.0.0.1", "::1"], port: 9737,
                                                                      ttl: 60, extra: descriptor.records(node: node.pubky, ttl: 60)),
                                           by: node, timestamp: 1)
        XCTAssertLessThan(packet.encodedPacket.count, 600, "both directions and two addresses fit well inside 1,000 bytes")
        XCTAssertEqual(try CapabilityDescriptor.read(from: packet).get(), descriptor)
        let terms = descriptor.offerTerms(provider: node.pubky)
        XCTAssertTrue(terms.supports(.lightningToOnchain))
        XCTAssertTrue(terms.supports(.onchainToLightning))
        XCTAssertEqual(terms.baseFeeSat, 300)
        XCTAssertEqual(terms.validUntilUnix, 1_700_000_600)
        XCTAssertEqual(OfferFeature.contractTypes(in: terms.features), [.taprootBoltz, .p2wsh])
    }

    func testNoDescriptorAndOtherVersions() throws {
        XCTAssertEqual(CapabilityDescriptor.read(from: try signed([])), .failure(.none))
        XCTAssertEqual(CapabilityDescriptor.read(from: try signed(["v=swap9;anything"])), .failure(.none),
                       "a later version this node cannot read is no descriptor, not a broken one")
        let withUnknownKey = "v=swap1;net=regtest;dir=ln_to_onchain;min=1;max=2;base=0;ppm=0;fee=0;conf=1;timeout=144;exp=5;x=y"
        XCTAssertNoThrow(try CapabilityDescriptor.read(from: try signed([withUnknownKey])).get())
        XCTAssertEqual("\(DescriptorError.none)", "publishes no capability descriptor")
    }

    func testMalformedRecordsAreRefused() throws {
        let good = "v=swap1;net=regtest;dir=ln_to_onchain;min=10;max=20;base=1;ppm=2;fee=3;conf=1;timeout=144;exp=99"
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "min=10", with: "min=30"), "min or max"),
            (good.replacingOccurrences(of: "ppm=2", with: "ppm=1000001"), "ppm"),
            (good.replacingOccurrences(of: "fee=3", with: "fee=-3"), "fee"),
            (good.replacingOccurrences(of: "fee=3", with: "fee=+3"), "fee"),
            (good.replacingOccurrences(of: "dir=ln_to_onchain", with: "dir=sideways"), "dir"),
            (good.replacingOccurrences(of: ";exp=99", with: ""), "exp"),
            (good.replacingOccurrences(of: "timeout=144", with: "timeout=0"), "timeout"),
            (good + ";base=2", "base appears twice"),
            (good + ";nonsense", "a part without '='"),
            (good.replacingOccurrences(of: "dir=ln_to_onchain", with: "dir=onchain_to_ln").replacingOccurrences(of: "conf=1", with: "conf=0"),
             "conf"),
        ]
        for (text, part) in cases {
            XCTAssertEqual(CapabilityDescriptor.read(from: try signed([text])), .failure(.malformed(part)), text)
        }
        XCTAssertEqual(CapabilityDescriptor.read(from: try signed([good, good])), .failure(.malformed("two records for ln_to_onchain")))
        let otherExpiry = good.replacingOccurrences(of: "dir=ln_to_onchain", with: "dir=onchain_to_ln")
            .replacingOccurrences(of: "exp=99", with: "exp=100")
        XCTAssertEqual(CapabilityDescriptor.read(from: try signed([good, otherExpiry])),
                       .failure(.malformed("its records disagree on net, exp or ct")))
    }

    /// A descriptor made from a provider's offer carries its terms and contract types.
    func testFromAnOffer() throws {
        let offer = Offer(requestID: "r", offerID: "o", providerPubky: node.pubky, network: "regtest",
                          directions: ["ln_to_onchain"], minAmountSat: 14_730, maxAmountSat: 1_000_000, baseFeeSat: 300,
                          feePPM: 1_000, onchainFeeSat: 373, feeRateSatPerVByte: 1, requiredConfirmations: 1,
                          htlcTimeoutBlocks: 144, validUntilUnix: 10, features: ["p2wsh_v2", "preimage_push"])
        let descriptor = CapabilityDescriptor(offer: offer, expiresAtUnix: 50)
        XCTAssertEqual(descriptor.terms, [reverse])
        XCTAssertEqual(descriptor.contractTypes, ["p2wsh_v2"])
        XCTAssertEqual(descriptor.expiresAtUnix, 50)
    }
}
