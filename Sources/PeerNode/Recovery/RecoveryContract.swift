import Bitcoin
import HTLC
import Offers
import Transport

/// The parameters `peernode recover --contract` takes for a swap the seed alone cannot
/// rebuild: the counterparty's key and the timeout (both in the SwapAccept), plus what
/// the engine's record holds besides. The shapes are the engines' own stored contracts,
/// so a saved accept (or one the counterparty sends again) can be pasted as it is:
///
///     client:   {"role": "client", "swap_index": i, "terms": <client swap contract>, "accept": <signed SwapAccept>}
///     provider: {"role": "provider", "swap_index": i, "client": <pubky>,
///                "accept": <signed SwapAccept>, "quote": <Quote>, "request": <SwapRequest>}
///
/// Nothing here is trusted: the contract is rebuilt from the accept's keys and timeout and
/// must use our own keys and payment hash for index i, or it is refused.
public struct RecoveryContract: Sendable {
    public let role: SwapRole
    public let index: UInt32
    public let accept: Signed<SwapAccept>
    /// What the engine stores as the record's contract.
    let recordContract: JSONValue
    /// The counterparty's pubky (z-base-32).
    let peer: String
    let network: Network
    public let contract: SwapContract

    public var swapID: String { accept.body.quoteID }

    public init(json: JSONValue, network: Network) throws(RecoveryError) {
        guard let roleName = json["role"]?.stringValue, let role = SwapRole(rawValue: roleName) else {
            throw .invalidContract("\"role\" must be \"client\" or \"provider\"")
        }
        guard let index = json["swap_index"]?.uint64Value, index < 0x8000_0000 else {
            throw .invalidContract("\"swap_index\" must be an integer below 2^31")
        }
        guard let acceptJSON = json["accept"] else { throw .invalidContract("the signed SwapAccept (\"accept\") is missing") }
        do { accept = try Signed<SwapAccept>(json: acceptJSON) } catch { throw .invalidContract("the accept: \(error)") }
        self.role = role
        self.index = UInt32(index)
        self.network = network
        switch role {
        case .client:
            guard let termsJSON = json["terms"] else { throw .invalidContract("the client swap's \"terms\" are missing") }
            let terms: ClientSwapTerms
            do { terms = try ClientSwapTerms(json: termsJSON) } catch { throw .invalidContract("the terms: \(error)") }
            guard terms.network == network else { throw .invalidContract("the terms are for \(terms.network.rawValue)") }
            // The accept must come from the provider the terms name, as the engine checked when it was received.
            do { try accept.verify(by: terms.provider.pubky) } catch {
                throw .invalidContract("the accept is not signed by the provider in the terms: \(error)")
            }
            recordContract = terms.json
            peer = terms.provider.pubky.z32
        case .provider:
            guard let client = json["client"]?.stringValue, (try? Pubky(parsing: client)) != nil else {
                throw .invalidContract("the provider swap's \"client\" pubky is missing or unreadable")
            }
            guard let quote = json["quote"], let request = json["request"] else {
                throw .invalidContract("the provider swap's \"quote\" and \"request\" are missing")
            }
            recordContract = .object(["accept": acceptJSON, "quote": quote, "request": request])
            peer = client
        }
        let body = accept.body
        do {
            contract = try SwapContract(type: body.scriptType, terms: SwapTerms(
                network: network, paymentHash: body.paymentHash, claimPublicKey: body.claimPublicKey,
                refundPublicKey: body.refundPublicKey, timeoutHeight: body.timeoutHeight))
        } catch {
            throw .invalidContract("the accept's contract: \(error)")
        }
    }

    /// Refuses parameters that are not a swap of this seed at this index: recovery only ever
    /// acts on contracts our own derived keys can spend. Returns the key scheme whose keys
    /// they use (the parameters do not say: every scheme is tried), which the re-created
    /// record keeps so the engine derives the same keys.
    func checkOwnership(_ keyChain: SwapKeyChain) throws(RecoveryError) -> SwapKeyScheme {
        let body = accept.body
        let role = self.role
        let scheme = try keyChain.scheme(at: index) { secrets in
            switch role {
            case .client: return body.claimPublicKey == secrets.claimKey.publicKey && body.paymentHash == secrets.paymentHash
            case .provider: return body.refundPublicKey == secrets.refundKey.publicKey
            }
        }
        if let scheme { return scheme }
        switch role {
        case .client: throw .invalidContract("the accept's claim key and payment hash are not ours for index \(index)")
        case .provider: throw .invalidContract("the accept's refund key is not ours for index \(index)")
        }
    }
}
