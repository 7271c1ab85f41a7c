import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// What a verifier refuses: a packet signed by another key, a changed byte, a payload over
/// or under its limits, a timestamp BEP 44 cannot carry; and pkarr's order of packets.
final class SignedPacketTests: XCTestCase {
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 3, count: 32)))

    private func packet(port: UInt16 = 9737) throws -> DNSPacket {
        let zone = SignedPacket.zone(of: identity.pubky)
        return DNSPacket(answers: [
            DNSRecord(name: zone, ttl: 60, data: .a([127, 0, 0, 1])),
            DNSRecord(name: try zone.child("_peernode"), ttl: 120, data: .svcb(.endpoint(port: port))),
        ])
    }

    func testARoundTripKeepsEveryField() throws {
        let signed = try SignedPacket.sign(try packet(), by: identity, timestamp: 1_700_000_000_000_001)
        let read = try SignedPacket(pubky: identity.pubky, relayPayload: signed.relayPayload)
        XCTAssertEqual(read, signed)
        XCTAssertEqual(read.minimumTTL, 60)
        XCTAssertEqual(read.relayPayload.count, 64 + 8 + signed.encodedPacket.count)
    }

    func testAnotherKeysPacketIsRefused() throws {
        let other = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 4, count: 32)))
        let signed = try SignedPacket.sign(try packet(), by: other, timestamp: 1)
        XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: signed.relayPayload)) { error in
            XCTAssertEqual(error as? PkarrError, .badSignature)
        }
    }

    func testAChangedByteAnywhereIsRefused() throws {
        let payload = try SignedPacket.sign(try packet(), by: identity, timestamp: 1_700_000_000_000_000).relayPayload
        for index in payload.indices {
            var changed = payload
            changed[index] ^= 0x20
            XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: changed), "byte \(index)")
        }
    }

    func testPayloadLimits() throws {
        XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: [UInt8](repeating: 0, count: 71))) {
            XCTAssertEqual($0 as? PkarrError, .payloadTooShort(71))
        }
        XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: [UInt8](repeating: 0, count: 1073))) {
            XCTAssertEqual($0 as? PkarrError, .payloadTooLarge(1073))
        }
        XCTAssertThrowsError(try SignedPacket(bytes: [UInt8](repeating: 0, count: 31)))
    }

    func testATimestampAboveInt64IsRefusedBothWays() throws {
        XCTAssertThrowsError(try SignedPacket.sign(try packet(), by: identity, timestamp: UInt64(Int64.max) + 1)) {
            XCTAssertEqual($0 as? PkarrError, .invalidTimestamp)
        }
        var payload = try SignedPacket.sign(try packet(), by: identity, timestamp: 5).relayPayload
        payload[64] = 0x80
        XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: payload)) {
            XCTAssertEqual($0 as? PkarrError, .invalidTimestamp)
        }
    }

    /// A 1,000-byte packet is accepted, 1,001 bytes is not, on encode or on read.
    func testTheThousandBytePacketLimit() throws {
        let zone = SignedPacket.zone(of: identity.pubky)
        func packet(textBytes: Int) throws -> DNSPacket {
            DNSPacket(answers: [DNSRecord(name: zone, ttl: 60, data: .text(String(repeating: "x", count: textBytes)))])
        }
        // header 12 + name 54 + type/class/ttl/length 10 + strings (n + ceil(n/255)).
        let fits = try packet(textBytes: 920)
        XCTAssertEqual(try fits.encode().count, 1000)
        XCTAssertNoThrow(try SignedPacket.sign(fits, by: identity, timestamp: 1))
        XCTAssertThrowsError(try packet(textBytes: 921).encode()) {
            XCTAssertEqual($0 as? PkarrError, .packetTooLarge(1001))
        }
        XCTAssertThrowsError(try DNSPacket(decoding: try fits.encode() + [0])) {
            XCTAssertEqual($0 as? PkarrError, .packetTooLarge(1001))
        }
    }

    func testTheLaterTimestampWinsAndATieGoesToTheLargerPacket() throws {
        let older = try SignedPacket.sign(try packet(port: 1), by: identity, timestamp: 10)
        let newer = try SignedPacket.sign(try packet(port: 1), by: identity, timestamp: 11)
        XCTAssertTrue(newer.isMoreRecent(than: older))
        XCTAssertFalse(older.isMoreRecent(than: newer))
        XCTAssertFalse(newer.isMoreRecent(than: newer))
        let small = try SignedPacket.sign(try packet(port: 1), by: identity, timestamp: 10)
        let large = try SignedPacket.sign(try packet(port: 2), by: identity, timestamp: 10)
        XCTAssertTrue(large.isMoreRecent(than: small))
        XCTAssertFalse(small.isMoreRecent(than: large))
    }
}
