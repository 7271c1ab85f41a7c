import Bitcoin
import Foundation
import TestSupport
import XCTest
@testable import Transport

/// The codec against a real DNS library: dnspython (hash-pinned in `.build/dnspython-venv`,
/// `scripts/setup.sh --pkarr`) builds packets that we decode, and decodes, and writes back,
/// the packets we build (`scripts/dns-cross-check.py`).
final class DNSPythonCrossCheckTests: XCTestCase {
    private let tool = PythonTool(venv: "dnspython-venv", install: "scripts/setup.sh --pkarr")
    private var script: String { PythonTool.repository.appendingPathComponent("scripts/dns-cross-check.py").path }
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 9, count: 32)))

    func testPacketsDNSPythonBuildsDecodeToTheSameRecords() throws {
        let zone = identity.pubky.z32
        let output = try tool.run([script, "build", zone])
        let packets = try XCTUnwrap(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        XCTAssertEqual(packets.count, 5)
        var records = 0
        for (index, entry) in packets.enumerated() {
            let wire = bytes(try XCTUnwrap(entry["hex"] as? String))
            let expected = try XCTUnwrap(entry["records"] as? [[String: Any]])
            let packet = try DNSPacket(decoding: wire)
            XCTAssertEqual(packet.answers.count, expected.count, "packet \(index)")
            for (record, want) in zip(packet.answers, expected) {
                XCTAssertEqual(Self.shape(record) as NSDictionary, want as NSDictionary, "packet \(index)")
                records += 1
            }
            // dnspython compresses as we do: our encoding of its packet is its bytes.
            XCTAssertEqual(try packet.encode().hex, wire.hex, "packet \(index)")
        }
        XCTAssertEqual(records, 15)
    }

    func testPacketsWeBuildAreReadAndRewrittenByDNSPython() throws {
        let zone = SignedPacket.zone(of: identity.pubky)
        let other = SignedPacket.zone(of: NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 1, count: 32))).pubky)
        let packets = [
            DNSPacket(answers: [
                DNSRecord(name: zone, ttl: 300, data: try XCTUnwrap(DNSRecordData.address("192.0.2.7"))),
                DNSRecord(name: zone, ttl: 300, data: try XCTUnwrap(DNSRecordData.address("2001:db8::7"))),
                DNSRecord(name: try zone.child("_peernode"), ttl: 300, data: .svcb(.endpoint(port: 40123))),
                DNSRecord(name: try zone.child("_swap"), ttl: 300, data: .text(String(repeating: "d=1;", count: 100))),
            ]),
            DNSPacket(answers: [
                DNSRecord(name: try zone.child("_peernode"), ttl: 7200, data: .svcb(.alias(to: other))),
                DNSRecord(name: try zone.child("_pubky"), ttl: 7200,
                          data: .https(try SVCBRecord(priority: 1, target: try DNSName("homeserver.example"), parameters: [
                              .init(key: SVCBRecord.alpnKey, value: [2, 0x68, 0x32]),
                              .init(key: SVCBRecord.portKey, value: [0x01, 0xbb]),
                              .init(key: SVCBRecord.ipv4HintKey, value: [192, 0, 2, 1]),
                          ]))),
                DNSRecord(name: try zone.child("www"), ttl: 60, data: .cname(try zone.child("_peernode"))),
                DNSRecord(name: try zone.child("mail"), ttl: 60, data: .mx(preference: 5, exchange: try zone.child("www"))),
                DNSRecord(name: zone, ttl: 60, data: .other(type: 65280, data: [1, 2, 3])),
                DNSRecord(name: zone, ttl: 60, data: .txt([[], Array("two".utf8)])),
            ]),
        ]
        let encoded = try packets.map { try $0.encode() }
        let output = try tool.run([script, "read"], input: try JSONSerialization.data(withJSONObject: encoded.map(\.hex)))
        let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        XCTAssertEqual(read.count, packets.count)
        for (index, (packet, entry)) in zip(packets, read).enumerated() {
            let records = try XCTUnwrap(entry["records"] as? [[String: Any]])
            XCTAssertEqual(records.count, packet.answers.count, "packet \(index)")
            for (record, seen) in zip(packet.answers, records) {
                XCTAssertEqual(seen as NSDictionary, Self.shape(record) as NSDictionary, "packet \(index)")
            }
            XCTAssertEqual(entry["rewritten"] as? String, encoded[index].hex, "packet \(index): dnspython writes it back unchanged")
            XCTAssertEqual(entry["id"] as? Int, 0)
            XCTAssertEqual(entry["flags"] as? Int, 0x8400)
        }
    }

    /// A record in the script's JSON shape (see `scripts/dns-cross-check.py`).
    private static func shape(_ record: DNSRecord) -> [String: Any] {
        let data: Any
        switch record.data {
        case .a, .aaaa: data = record.data.addressText ?? ""
        case .txt(let strings): data = strings.map(\.hex)
        case .svcb(let svcb), .https(let svcb):
            data = ["priority": Int(svcb.priority), "target": svcb.target.description,
                    "params": Dictionary(uniqueKeysWithValues: svcb.parameters.map { (String($0.key), $0.value.hex) })]
        case .cname(let name), .ns(let name), .ptr(let name): data = name.description
        case .mx(let preference, let exchange): data = ["preference": Int(preference), "exchange": exchange.description]
        case .other(_, let bytes): data = bytes.hex
        }
        return ["name": record.name.description, "ttl": Int(record.ttl), "type": Int(record.data.type), "data": data]
    }
}
