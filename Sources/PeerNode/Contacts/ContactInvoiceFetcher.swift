import Bitcoin
import Lightning
import Offers
import Transport

/// The payer side of contact invoices: asks a contact for an invoice over the peer
/// channel and returns it only once it is known to be the contact's and payable as asked:
/// signed by the pubky dialled and answering this request (`ContactInvoicePolicy`), a
/// BOLT11 that decodes and whose signature verifies, on this node's network, for exactly
/// the amount asked, with at least `policy.minimumSecondsLeft` before it expires. No
/// engine: it pays nothing and records nothing.
public struct ContactInvoiceFetcher: Sendable {
    /// A checked invoice: the BOLT11 to pay and what it says.
    public struct Fetched: Sendable, Equatable {
        public let bolt11: String
        public let invoice: SubmarineInvoice
    }

    public let dialer: PeerDialer
    public let policy: ContactInvoicePolicy
    public let timeoutMilliseconds: UInt64
    /// Unix seconds now, for the expiry check.
    private let nowUnix: @Sendable () -> UInt64

    public init(dialer: PeerDialer, network: Network, timeoutMilliseconds: UInt64 = 15_000,
                nowUnix: @escaping @Sendable () -> UInt64) {
        self.dialer = dialer
        policy = ContactInvoicePolicy(network: network)
        self.timeoutMilliseconds = timeoutMilliseconds
        self.nowUnix = nowUnix
    }

    /// Dials `contact` at `host:port` and asks it for `amountMsat`.
    public func fetch(from contact: Pubky, host: String, port: Int, amountMsat: Int64,
                      description: String = "") async throws(ContactInvoiceFetchError) -> Fetched {
        let connection: PeerConnection
        do {
            connection = try await dialer.dial(contact, host: host, port: port)
        } catch {
            throw .unreachable(error.description)
        }
        let request = ContactInvoiceRequest(requestID: RandomID.make(), amountMsat: amountMsat, description: description)
        let bytes: [UInt8]
        do {
            bytes = try await connection.request(request.encoded, id: request.requestID, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            await connection.close()
            throw .noAnswer(error.description)
        }
        await connection.close()
        return try check(reply: bytes, to: request, from: contact)
    }

    /// The checks on a reply, apart from the network round trip.
    public func check(reply bytes: [UInt8], to request: ContactInvoiceRequest,
                      from contact: Pubky) throws(ContactInvoiceFetchError) -> Fetched {
        let reply: SwapMessage
        do {
            reply = try SwapMessage(bytes: bytes)
        } catch {
            throw .noAnswer("the reply is not a swap/1 message: \(error)")
        }
        let signed: Signed<ContactInvoice>
        switch reply {
        case .invoice(let invoice): signed = invoice
        case .reject(let reject): throw .refused(code: reject.code, reason: reject.reason)
        default: throw .noAnswer("the contact answered with something other than an Invoice")
        }
        let bolt11: String
        do {
            bolt11 = try policy.checkSignature(signed, answering: request, contact: contact)
        } catch {
            throw .notSignedByContact(error.description)
        }
        let invoice: SubmarineInvoice
        do {
            invoice = try SubmarineInvoice(bolt11: bolt11)
        } catch {
            throw .undecodable(error.description)
        }
        do {
            try policy.check(invoice, answering: request, nowUnix: nowUnix())
        } catch {
            throw .mismatch(error.description)
        }
        return Fetched(bolt11: bolt11, invoice: invoice)
    }
}
