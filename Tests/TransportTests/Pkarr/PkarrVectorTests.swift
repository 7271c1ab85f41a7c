import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// `pkarr/pkarr_vectors.json` (made with dnspython and pynacl, pkarr `design/base.md` and
/// `design/relays.md`): the DNS packet byte for byte, the BEP 44 signable, the signature, the
/// relay payload and the canonical signed packet.
final class PkarrVectorTests: XCTestCase {
    private func vectors() throws -> [[String: Any]] {
        guard let root = try Vectors.json("pkarr/pkarr_vectors.json") as? [String: Any],
              let valid = root["valid"] as? [[String: Any]] else { throw MissingField(name: "valid") }
        return valid
    }

    func testTheVectorSetIsComplete() throws {
        XCTAssertEqual(try vectors().count, 1)
    }

    func testDecodingGivesTheZoneFileRecords() throws {
        for vector in try vectors() {
            let packet = try DNSPacket(decoding: try vector.bytes("dns_packet_hex"))
            let zone = try DNSName(try vector.string("pubky_z32"))
            XCTAssertEqual(packet.answers.map { $0.zoneLine(in: zone) }, vector["records"] as? [String])
            XCTAssertEqual(packet.id, 0)
            XCTAssertEqual(packet.flags, DNSPacket.answerFlags)
            XCTAssertEqual(packet.answers(named: try zone.child("_peernode")).first.flatMap { record -> UInt16? in
                if case .svcb(let svcb) = record.data { return svcb.port }
                return nil
            }, 9737)
        }
    }

    /// Our encoder compresses as dnspython does: the same records give the same bytes.
    func testEncodingTheRecordsGivesTheVectorBytes() throws {
        for vector in try vectors() {
            let zone = try DNSName(try vector.string("pubky_z32"))
            let packet = DNSPacket(answers: [
                DNSRecord(name: zone, ttl: 300, data: try XCTUnwrap(DNSRecordData.address("127.0.0.1"))),
                DNSRecord(name: try zone.child("_peernode"), ttl: 300, data: .svcb(.endpoint(port: 9737))),
                DNSRecord(name: try zone.child("_swap"), ttl: 300,
                          data: .text("v=swap1;dir=ln_to_onchain;min=10000;max=1000000;base=500;ppm=2000")),
            ])
            XCTAssertEqual(try packet.encode().hex, try vector.string("dns_packet_hex"))
            // And a decoded packet encodes back to its own bytes.
            let decoded = try DNSPacket(decoding: try vector.bytes("dns_packet_hex"))
            XCTAssertEqual(try decoded.encode().hex, try vector.string("dns_packet_hex"))
        }
    }

    func testSigningGivesTheVectorSignatureAndPayload() throws {
        for vector in try vectors() {
            let identity = NodeIdentity(seed: try NodeSeed(bytes: try vector.bytes("seed_hex")))
            XCTAssertEqual(identity.publicKey.hex, try vector.string("public_key_hex"))
            XCTAssertEqual(identity.pubky.z32, try vector.string("pubky_z32"))
            let timestamp = try XCTUnwrap(vector["timestamp_us"] as? NSNumber).uint64Value
            let packet = try DNSPacket(decoding: try vector.bytes("dns_packet_hex"))
            XCTAssertEqual(SignedPacket.signable(timestamp: timestamp, packet: try vector.bytes("dns_packet_hex")).hex,
                           try vector.string("signable_hex"))
            let signed = try SignedPacket.sign(packet, by: identity, timestamp: timestamp)
            XCTAssertEqual(signed.signature.hex, try vector.string("signature_hex"))
            XCTAssertEqual(signed.relayPayload.hex, try vector.string("relay_payload_hex"))
            XCTAssertEqual(signed.bytes.hex, try vector.string("signed_packet_hex"))
        }
    }

    func testTheVectorPayloadVerifies() throws {
        for vector in try vectors() {
            let pubky = try Pubky(parsing: try vector.string("pubky_z32"))
            let fromPayload = try SignedPacket(pubky: pubky, relayPayload: try vector.bytes("relay_payload_hex"))
            let fromBytes = try SignedPacket(bytes: try vector.bytes("signed_packet_hex"))
            XCTAssertEqual(fromPayload, fromBytes)
            XCTAssertEqual(fromPayload.timestamp, try XCTUnwrap(vector["timestamp_us"] as? NSNumber).uint64Value)
            XCTAssertEqual(fromPayload.encodedPacket.hex, try vector.string("dns_packet_hex"))
            XCTAssertEqual(fromPayload.minimumTTL, 300)
        }
    }
}
