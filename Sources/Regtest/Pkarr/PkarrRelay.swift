import Synchronization
import Transport

/// The pkarr relay API of `design/relays.md`, served by the regtest hub so that nodes
/// publish and resolve their signed packets in tests as they would through a public relay:
///
/// - `PUT /<z32>` with signature | timestamp | DNS packet: 204 when stored (or the same
///   packet again), 400 for a bad key, signature or packet, 409 when the stored packet is
///   more recent, 413 over 1,072 bytes;
/// - `GET /<z32>`: 200 with the payload, `Content-Type: application/pkarr.org/relays#payload`,
///   `Cache-Control: public, max-age=<the packet's smallest TTL>` and `Last-Modified` (the
///   packet's timestamp); 404 for a key it holds nothing for; 400 for a bad key.
///
/// A test makes a relay misbehave with `mode` (`hub_pkarr_relay`): `stale` serves the packet
/// a key had before its newest, `forged` serves the newest with its records changed, its
/// timestamp a day later and the old signature (what an attacker without the key can
/// send), `down` closes its port (`PkarrRelayService`). Its store is checked whatever the
/// mode: a PUT is verified in every mode.
public final class PkarrRelay: Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case honest, stale, forged, down
    }

    /// What a test reads back through `hub_pkarr_relays`.
    public struct Counters: Sendable, Equatable {
        public var gets = 0
        public var getsFound = 0
        public var puts = 0
        public var putsStored = 0
        public var putsRefused = 0
    }

    static let payloadType = "application/pkarr.org/relays#payload"
    static let longestCache: UInt32 = 86_400

    private struct State {
        var store = PkarrRelayStore()
        var mode = Mode.honest
        var counters = Counters()
    }

    private let state = Mutex(State())

    public init() {}

    public var mode: Mode { state.withLock { $0.mode } }
    public var counters: Counters { state.withLock { $0.counters } }
    public var storedKeys: Int { state.withLock { $0.store.count } }

    public func setMode(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// The handler to give `HTTPServer`.
    public var handler: @Sendable (HTTPRequest) async -> HTTPResponse {
        { [self] request in self.respond(to: request) }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.method == .options { return response(.noContent) }
        guard request.method == .get || request.method == .put else {
            return response(.methodNotAllowed, text: "a pkarr relay answers GET and PUT")
        }
        guard let pubky = Self.pubky(inTarget: request.target) else {
            return response(.badRequest, text: "the path is not /<z-base-32 public key>")
        }
        return request.method == .put ? put(pubky, request.body) : get(pubky)
    }

    private func put(_ pubky: Pubky, _ body: [UInt8]) -> HTTPResponse {
        let outcome = state.withLock { state -> PkarrRelayStore.PutOutcome in
            let outcome = state.store.put(pubky: pubky, payload: body)
            state.counters.puts += 1
            switch outcome {
            case .stored, .unchanged: state.counters.putsStored += 1
            default: state.counters.putsRefused += 1
            }
            return outcome
        }
        switch outcome {
        case .stored, .unchanged: return response(.noContent)
        case .olderThanStored: return response(.conflict, text: "a more recent packet is stored for this key")
        case .tooLarge: return response(.contentTooLarge, text: "a relay payload is at most \(SignedPacket.maxPayloadLength) bytes")
        case .invalid(let error): return response(.badRequest, text: error.description)
        }
    }

    private func get(_ pubky: Pubky) -> HTTPResponse {
        let (packet, mode) = state.withLock { state -> (SignedPacket?, Mode) in
            state.counters.gets += 1
            let packet: SignedPacket?
            switch state.mode {
            case .stale: packet = state.store.previousPacket(for: pubky) ?? state.store.packet(for: pubky)
            default: packet = state.store.packet(for: pubky)
            }
            if packet != nil { state.counters.getsFound += 1 }
            return (packet, state.mode)
        }
        guard let packet else { return response(.notFound, text: "no packet is known for this key") }
        let payload = mode == .forged ? Self.forged(packet) : packet.relayPayload
        let maxAge = min(packet.minimumTTL ?? 300, Self.longestCache)
        var reply = response(.ok)
        reply.headers.add(name: "Content-Type", value: Self.payloadType)
        reply.headers.add(name: "Cache-Control", value: "public, max-age=\(maxAge)")
        reply.headers.add(name: "Last-Modified", value: HTTPDate.format(unixTime: Int64(packet.timestamp / 1_000_000)))
        reply.body = payload
        return reply
    }

    /// `packet` with every SVCB port set to 1 and every A record to 127.0.0.2, a timestamp
    /// a day later (so it would win if believed) and the original signature.
    static func forged(_ packet: SignedPacket) -> [UInt8] {
        let answers = packet.packet.answers.map { record -> DNSRecord in
            switch record.data {
            case .svcb(let svcb) where svcb.port != nil:
                return DNSRecord(name: record.name, ttl: record.ttl, data: .svcb(.endpoint(port: 1, priority: svcb.priority)))
            case .a:
                return DNSRecord(name: record.name, ttl: record.ttl, data: .a([127, 0, 0, 2]))
            default:
                return record
            }
        }
        let encoded = (try? DNSPacket(answers: answers).encode()) ?? packet.encodedPacket
        let timestamp = packet.timestamp + 86_400_000_000
        return SignedPacket.relayPayload(signature: packet.signature, timestamp: timestamp, encodedPacket: encoded)
    }

    /// The key in `/<z32>` (a query string ignored).
    static func pubky(inTarget target: String) -> Pubky? {
        let path = target.prefix { $0 != "?" }
        guard path.hasPrefix("/") else { return nil }
        let key = path.dropFirst()
        guard key.utf8.count == Pubky.encodedLength else { return nil }
        return try? Pubky(parsing: String(key))
    }

    /// Every answer carries the CORS headers public relays send.
    private func response(_ status: HTTPStatus, text: String? = nil) -> HTTPResponse {
        var reply = text.map { HTTPResponse(status: status, contentType: "text/plain", body: $0) } ?? HTTPResponse(status: status)
        reply.headers.add(name: "Access-Control-Allow-Origin", value: "*")
        reply.headers.add(name: "Access-Control-Allow-Methods", value: "GET, PUT, OPTIONS")
        return reply
    }
}
