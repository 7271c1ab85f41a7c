import Bitcoin
import Transport

/// Probes over the transport: connects (the connector opens a byte stream to the
/// contact's address: TCP in the daemon, in-memory pairs in tests), runs the handshake
/// expecting the contact's pubky, sends an OfferRequest and reads the reply.
public struct PeerOfferProber: OfferProber {
    public typealias Connector = @Sendable (Contact) async throws -> any ByteStream

    public let identity: NodeIdentity
    public let network: Network
    private let sleeper: any Sleeper
    private let limits: PeerLimits
    private let log: PeerLog
    private let connector: Connector

    public init(identity: NodeIdentity, network: Network, sleeper: any Sleeper, limits: PeerLimits = PeerLimits(),
                log: PeerLog = .silent, connector: @escaping Connector) {
        self.identity = identity
        self.network = network
        self.sleeper = sleeper
        self.limits = limits
        self.log = log
        self.connector = connector
    }

    public func probe(_ contact: Contact, timeoutMilliseconds: UInt64) async -> ProbeResult {
        let stream: any ByteStream
        do {
            stream = try await connector(contact)
        } catch {
            return .skipped(.unreachable("cannot connect to \(contact.host):\(contact.port)"))
        }
        let connection: PeerConnection
        do {
            connection = try await PeerConnection.dial(over: stream, identity: identity, expecting: contact.pubky,
                                                       sleeper: sleeper, limits: limits, log: log)
        } catch {
            await stream.close()
            return .skipped(.unreachable("handshake failed: \(error)"))
        }
        let id = RandomID.make()
        let request = OfferRequest(requestID: id, network: network.rawValue).encoded
        let result: ProbeResult
        do {
            result = .interpret(reply: try await connection.request(request, id: id, timeoutMilliseconds: timeoutMilliseconds))
        } catch .requestTimedOut {
            // No answer is not an answer: held back as a contact that gave none in time
            // (`Router.Settings.timedOutHoldSeconds`), not as one that said it runs no provider.
            result = .skipped(.timedOut(milliseconds: timeoutMilliseconds))
        } catch {
            result = .skipped(.unreachable("\(error)"))
        }
        await connection.close()
        return result
    }
}
