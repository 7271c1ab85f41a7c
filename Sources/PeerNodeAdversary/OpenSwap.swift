import Bitcoin
import HTLC
import Offers

/// A swap the kit set up the honest way (quote, SwapRequest, a SwapAccept checked as the
/// daemon's client checks it): the secrets only the client holds and the contract the
/// provider will lock into. What the kit does with it next is the attack.
struct OpenSwap {
    let swapID: String
    let quote: Quote
    let accept: SwapAccept
    let contract: SwapContract
    let preimage: [UInt8]
    let claimKey: PrivateKey
    /// X: what the claim's destination is meant to receive.
    let amountSat: Int64
    /// The rate the claim fee was priced at, when quoting.
    let claimFeeRate: FeeRate
    /// The kit's own address, where its claims pay.
    let destination: Address
    let cltvDelta: UInt64
}
