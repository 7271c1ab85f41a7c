/// Talks to pkarr relays (`design/relays.md`) over HTTP: GET a key's packet, PUT one. What
/// comes back is verified here (`SignedPacket`), so a relay that serves a forged or broken
/// packet is reported as such and never handed on as a packet.
public struct PkarrRelayClient: Sendable {
    public enum GetOutcome: Sendable, Equatable {
        case packet(SignedPacket)
        /// 404: the relay knows no packet for the key.
        case notFound
        /// An answer that is not a verified packet for the key (why; no peer bytes quoted).
        case refused(String)
        /// No answer (connection refused, timed out, broken).
        case unreachable(String)
    }

    public enum PutOutcome: Sendable, Equatable {
        case stored
        /// 409: the relay holds a more recent packet for the key.
        case newerStored
        case refused(String)
        case unreachable(String)
    }

    public let http: HTTPClient
    public let timeoutMilliseconds: UInt64

    public init(http: HTTPClient, timeoutMilliseconds: UInt64 = 5_000) {
        self.http = http
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public func get(_ pubky: Pubky, from relay: PkarrRelayURL) async -> GetOutcome {
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(method: .get, target: relay.target(for: pubky)),
                                           to: HTTPEndpoint(host: relay.host, port: relay.port),
                                           timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            return .unreachable("\(error)")
        }
        switch response.status.code {
        case 200:
            do {
                return .packet(try SignedPacket(pubky: pubky, relayPayload: response.body))
            } catch {
                return .refused("it served a packet that fails verification: \(error)")
            }
        case 404:
            return .notFound
        default:
            return .refused("it answered HTTP \(response.status.code)")
        }
    }

    public func put(_ packet: SignedPacket, to relay: PkarrRelayURL) async -> PutOutcome {
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(method: .put, target: relay.target(for: packet.pubky),
                                                       body: packet.relayPayload),
                                           to: HTTPEndpoint(host: relay.host, port: relay.port),
                                           timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            return .unreachable("\(error)")
        }
        switch response.status.code {
        case 200, 204: return .stored
        case 409: return .newerStored
        default: return .refused("it answered HTTP \(response.status.code)")
        }
    }
}
