import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// Hostile DNS packets: every one refused with its reason, none crashes or loops.
final class DNSPacketHostileTests: XCTestCase {
    private func vectorPacket() throws -> [UInt8] {
        guard let root = try Vectors.json("pkarr/pkarr_vectors.json") as? [String: Any],
              let valid = root["valid"] as? [[String: Any]] else { throw MissingField(name: "valid") }
        return try valid[0].bytes("dns_packet_hex")
    }

    /// A header with one answer, then `body`.
    private func packet(answerBody body: [UInt8]) -> [UInt8] {
        [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0] + body
    }

    /// An A record's fields after its name.
    private let aFields: [UInt8] = [0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]

    func testEveryTruncationIsRefused() throws {
        let full = try vectorPacket()
        for length in 0..<full.count {
            XCTAssertThrowsError(try DNSPacket(decoding: Array(full.prefix(length))), "length \(length)") { error in
                guard case .truncated = error as? PkarrError else { return XCTFail("length \(length): \(error)") }
            }
        }
    }

    func testAPointerToItselfOrForwardIsRefused() {
        // The name at offset 12 is a pointer to 12 (itself).
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0xc0, 12] + aFields))) {
            XCTAssertEqual($0 as? PkarrError, .badPointer)
        }
        // A pointer forward, to the A record's data.
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0xc0, 20] + aFields))) {
            XCTAssertEqual($0 as? PkarrError, .badPointer)
        }
        // A pointer into the header.
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0xc0, 2] + aFields))) {
            XCTAssertEqual($0 as? PkarrError, .badPointer)
        }
    }

    /// Two names that point at each other: the second record's name points back at the
    /// first, whose label is followed by a pointer to the second.
    func testAPointerLoopIsRefused() {
        // offset 12: label "a", then a pointer to 30 (the second record's name).
        let first: [UInt8] = [1, 0x61, 0xc0, 30] + aFields          // 12..<30
        let second: [UInt8] = [0xc0, 12] + aFields                  // 30..<46 (name at 30)
        let body = first + second
        var bytes = packet(answerBody: body)
        bytes[7] = 2
        XCTAssertThrowsError(try DNSPacket(decoding: bytes)) { XCTAssertEqual($0 as? PkarrError, .badPointer) }
    }

    func testReservedLabelTypesAreRefused() {
        for type: UInt8 in [0x40, 0x80] {
            XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [type | 1, 0x61, 0] + aFields))) {
                XCTAssertEqual($0 as? PkarrError, .badLabelType)
            }
        }
    }

    func testLabelsWithUnprintableBytesOrDotsAreRefused() {
        for byte: UInt8 in [0x00, 0x20, 0x2e, 0x7f, 0xff] {
            XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [2, 0x61, byte, 0] + aFields)), "byte \(byte)") {
                XCTAssertEqual($0 as? PkarrError, .badLabel("a byte that is not printable ASCII"))
            }
        }
        XCTAssertThrowsError(try DNSName("a..b"))
        XCTAssertThrowsError(try DNSName(String(repeating: "x", count: 64)))
        XCTAssertEqual(try DNSName("MiXeD.Case").description, "mixed.case")
    }

    func testANameOver255BytesIsRefused() {
        // Five 60-byte labels: 306 bytes of name.
        let label: [UInt8] = [60] + [UInt8](repeating: 0x61, count: 60)
        let name = Array([[UInt8]](repeating: label, count: 5).joined()) + [0]
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: name + aFields))) {
            XCTAssertEqual($0 as? PkarrError, .nameTooLong)
        }
        XCTAssertThrowsError(try DNSName(labels: [String](repeating: String(repeating: "a", count: 60), count: 5))) {
            XCTAssertEqual($0 as? PkarrError, .nameTooLong)
        }
    }

    func testOversizeIsRefusedBeforeParsing() {
        XCTAssertThrowsError(try DNSPacket(decoding: [UInt8](repeating: 0, count: 1001))) {
            XCTAssertEqual($0 as? PkarrError, .packetTooLarge(1001))
        }
    }

    func testRecordDataThatDoesNotFitItsTypeIsRefused() {
        // An A record of 5 bytes.
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 5, 1, 2, 3, 4, 5]))) {
            XCTAssertEqual($0 as? PkarrError, .badRecordData("A", "5 bytes, not 4"))
        }
        // A TXT string that runs past its record.
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0, 0, 16, 0, 1, 0, 0, 0, 60, 0, 2, 5, 0x61]))) {
            XCTAssertEqual($0 as? PkarrError, .badRecordData("TXT", "a string runs past the record"))
        }
        // SVCB keys out of order (port before alpn).
        let svcb: [UInt8] = [0, 1, 0, 0, 3, 0, 2, 0x26, 0x09, 0, 1, 0, 3, 2, 0x68, 0x32]
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0, 0, 64, 0, 1, 0, 0, 0, 60, 0, UInt8(svcb.count)] + svcb))) {
            XCTAssertEqual($0 as? PkarrError, .badRecordData("SVCB", "parameter keys are not in strictly ascending order"))
        }
        // A port parameter of 3 bytes.
        let badPort: [UInt8] = [0, 1, 0, 0, 3, 0, 3, 1, 2, 3]
        XCTAssertThrowsError(try DNSPacket(decoding: packet(answerBody: [0, 0, 64, 0, 1, 0, 0, 0, 60, 0, UInt8(badPort.count)] + badPort))) {
            XCTAssertEqual($0 as? PkarrError, .badRecordData("SVCB", "the port parameter is not 2 bytes"))
        }
        // A compressed SVCB target (RFC 9460 forbids it).
        let first: [UInt8] = [1, 0x61, 0] + aFields                                    // name at 12
        let compressedTarget: [UInt8] = [0, 1, 0xc0, 12]
        var bytes = packet(answerBody: first + [0, 0, 64, 0, 1, 0, 0, 0, 60, 0, 4] + compressedTarget)
        bytes[7] = 2
        XCTAssertThrowsError(try DNSPacket(decoding: bytes)) { XCTAssertEqual($0 as? PkarrError, .badPointer) }
    }

    func testBytesAfterTheLastRecordAreRefused() throws {
        XCTAssertThrowsError(try DNSPacket(decoding: try vectorPacket() + [0, 0])) {
            XCTAssertEqual($0 as? PkarrError, .trailingBytes(2))
        }
    }

    func testMalformedRecordsAreNotEncoded() {
        XCTAssertThrowsError(try DNSPacket(answers: [DNSRecord(name: .root, ttl: 1, data: .a([1, 2, 3]))]).encode())
        XCTAssertThrowsError(try DNSPacket(answers: [DNSRecord(name: .root, ttl: 1, data: .txt([]))]).encode())
        XCTAssertThrowsError(try SVCBRecord(priority: 1, target: .root, parameters: [.init(key: 3, value: [1])]))
    }

    /// Random changes to a real packet, and random bytes: every input ends in a packet or an
    /// error, never a crash or a hang (a fixed seed, so a failure repeats).
    func testRandomDamageNeverCrashes() throws {
        var generator = SeededGenerator(state: 0x5eed)
        let base = try vectorPacket()
        var decoded = 0
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if generator.next() % 5 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
            if let packet = try? DNSPacket(decoding: bytes) {
                decoded += 1
                // What decodes must encode again within the limit.
                XCTAssertNoThrow(try packet.encode())
            }
        }
        for _ in 0..<5_000 {
            let count = Int(generator.next() % 200)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? DNSPacket(decoding: bytes)
        }
        XCTAssertGreaterThan(decoded, 0)
    }
}
