import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// One `onchain_to_ln` swap as the client sees it: the provider's identity and claim key,
/// the client's refund key, the invoice's hash and preimage, the quote, the request, the
/// signed accept, the funding, and real signed spends of the lock (the provider's claim
/// and the client's refund, through `SpendSigner` and `RefundBuilder`).
struct SubmarineClientFixture {
    static let provider = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x50, count: NodeSeed.length)))
    static let stranger = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x52, count: NodeSeed.length)))
    static let providerClaimKey = key(0x55)
    static let clientRefundKey = key(0x66)
    static let preimage = [UInt8](repeating: 0x07, count: 32)
    static let paymentHash = SHA256.hash(preimage)
    /// The tip the accept is checked at; the provider's timeout is tip + 144.
    static let acceptTip = 1_000
    static let timeout = 1_144
    /// The contract types a client asks for (the retired unsized P2WSH is never offered).
    static let offeredTypes: [ContractType] = [.taprootBoltz, .p2wsh]

    static func key(_ byte: UInt8) -> PrivateKey { try! PrivateKey([UInt8](repeating: byte, count: 32)) }

    let type: ContractType
    let quote: Quote
    let request: SubmarineSwapRequest
    let contract: SwapContract
    /// Schnorr signatures use fresh randomness: each spend is signed once, so a test that
    /// compares one with what the machine recorded compares the same bytes.
    private var honestClaim: Transaction?
    private var refunds: [Int64: Transaction] = [:]

    /// `cooperative`: the request lists `musig2` (cooperative key-path spends, issue 17).
    init(_ type: ContractType = .taprootBoltz, cooperative: Bool = false) {
        self.type = type
        quote = Quote(requestID: "req-2", quoteID: "quote-2", offerID: "offer-1", direction: .onchainToLightning,
                      amountSat: 20_000, serviceFeeSat: 430, onchainFeeSat: 380, feeRateSatPerVByte: 2,
                      htlcTimeoutBlocks: 144, requiredConfirmations: 1, validUntilUnix: 1_700_000_300,
                      paymentHash: Self.paymentHash)
        request = SubmarineSwapRequest(requestID: "req-7", quoteID: "quote-2", invoice: "lnbcrt200u1fake",
                                       refundPublicKey: Self.clientRefundKey.publicKey, scriptType: type,
                                       features: cooperative ? [OfferFeature.musig2] : [])
        contract = Self.contract(type, claimKey: Self.providerClaimKey.publicKey, refundKey: Self.clientRefundKey.publicKey,
                                 roles: .submarine)
        honestClaim = signClaim(fee: 400)
        refunds = Dictionary(uniqueKeysWithValues: [Int64(2), 5, 9].map { ($0, signRefund(satPerVByte: $0)) })
    }

    static func contract(_ type: ContractType, claimKey: PublicKey, refundKey: PublicKey, roles: ContractRoles,
                         hash: [UInt8] = paymentHash, timeout: Int = timeout) -> SwapContract {
        try! SwapContract(type: type, terms: try! SwapTerms(network: .regtest, paymentHash: hash, claimPublicKey: claimKey,
                                                             refundPublicKey: refundKey, timeoutHeight: UInt32(timeout),
                                                             roles: roles))
    }

    var terms: SubmarineClientTerms {
        SubmarineClientTerms(provider: Self.provider.pubky, quote: quote, request: request,
                             invoicePaymentHash: Self.paymentHash, network: .regtest)
    }

    func settings(finality: Int = 2) -> SubmarineClientMachine.Settings {
        SubmarineClientMachine.Settings(terms: terms, finalityConfirmations: finality)
    }

    /// The honest accept for the quote, for `contract`.
    var accept: SubmarineSwapAccept {
        SubmarineSwapAccept(requestID: request.requestID, swapID: "swap-2", quoteID: quote.quoteID, amountSat: quote.amountSat,
                            totalSat: quote.totalSat, contract: contract)
    }

    func signed(_ accept: SubmarineSwapAccept, by signer: NodeIdentity = provider) -> Signed<SubmarineSwapAccept> {
        Signed(signing: accept, with: signer)
    }

    /// The wallet's funding: `lockValue` to the contract (default the quote's total) and change.
    func funding(lockValue: Int64? = nil, tag: UInt8 = 0xa1, extraLockOutput: Bool = false) -> Transaction {
        let input = TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                              index: 1), sequence: TransactionInput.replaceableSequence)
        var outputs = [contract.lockOutput(value: lockValue ?? quote.totalSat),
                       TransactionOutput(value: 70_000, scriptPubKey: Self.walletAddress.script)]
        if extraLockOutput { outputs.append(contract.lockOutput(value: quote.totalSat)) }
        return Transaction(version: 2, inputs: [input], outputs: outputs, lockTime: 0)
    }

    var lock: LockOutput { LockOutput(outPoint: OutPoint(txid: funding().txid, index: 0), value: quote.totalSat) }

    static let walletAddress = Address.p2wpkh(pubkeyHash: [UInt8](repeating: 0x31, count: 20))
    static let providerAddress = Address.p2wpkh(pubkeyHash: [UInt8](repeating: 0x41, count: 20))

    /// The provider's claim of the lock, signed through the claim path with `preimage`.
    func claim() -> Transaction { honestClaim! }

    private func signClaim(fee: Int64) -> Transaction {
        let unsigned = Transaction(
            version: 2, inputs: [TransactionInput(previousOutput: lock.outPoint, sequence: TransactionInput.replaceableSequence)],
            outputs: [TransactionOutput(value: lock.value - fee, scriptPubKey: Self.providerAddress.script)], lockTime: 0)
        return try! SpendSigner.sign(unsigned, contract: contract, lockValue: lock.value, path: .claim(preimage: Self.preimage),
                                     key: Self.providerClaimKey)
    }

    /// A co-signature of the provider's key-path claim, as the engine records it (the
    /// nonces and signature stand-ins: the machine checks none of them).
    var cosignedClaim: CoopCosigned {
        CoopCosigned(kind: .claim, record: CoopSignedRecord(initiatorNonce: Self.nonce(0x61), responderNonce: Self.nonce(0x62),
                                                            sighash: [UInt8](repeating: 0x63, count: 32),
                                                            partialSignature: try! MuSig2PartialSignature([UInt8](repeating: 1, count: 32))),
                     txid: keyPathClaim.txid)
    }

    /// The provider's key-path claim (one 64-byte witness element), exactly X to its wallet.
    var keyPathClaim: Transaction {
        Transaction(version: 2,
                    inputs: [TransactionInput(previousOutput: lock.outPoint, sequence: TransactionInput.replaceableSequence,
                                              witness: Witness([[UInt8](repeating: 0x64, count: 64)]))],
                    outputs: [TransactionOutput(value: lock.value - 111, scriptPubKey: Self.providerAddress.script)], lockTime: 0)
    }

    /// The client's recorded refund round, and the key-path refund it gives.
    var refundRound: CoopRound {
        var unsigned = keyPathRefund
        unsigned.inputs[0].witness = Witness()
        return CoopRound(kind: .refund, record: CoopRequestedRecord(publicNonce: Self.nonce(0x65),
                                                                   sighash: [UInt8](repeating: 0x66, count: 32),
                                                                   unsignedTransaction: unsigned),
                         scriptPathOutputSat: lock.value - 138, scriptPathVirtualSize: 138)
    }

    var keyPathRefund: Transaction {
        Transaction(version: 2,
                    inputs: [TransactionInput(previousOutput: lock.outPoint, sequence: TransactionInput.replaceableSequence,
                                              witness: Witness([[UInt8](repeating: 0x67, count: 64)]))],
                    outputs: [TransactionOutput(value: lock.value - 111, scriptPubKey: Self.walletAddress.script)], lockTime: 0)
    }

    /// A valid public nonce (two points) from a key byte.
    static func nonce(_ byte: UInt8) -> MuSig2PublicNonce {
        let point = key(byte).publicKey.compressed
        return try! MuSig2PublicNonce(point + key(byte &+ 1).publicKey.compressed)
    }

    /// `transaction` with the lock input's witness replaced.
    func rewitnessed(_ transaction: Transaction, _ change: (inout [[UInt8]]) -> Void) -> Transaction {
        var copy = transaction
        change(&copy.inputs[0].witness.stack)
        return copy
    }

    /// The client's refund at `satPerVByte` (2, 5 or 9), signed with its refund key (nLockTime = timeout).
    func refund(satPerVByte: Int64 = 2) -> Transaction { refunds[satPerVByte]! }

    private func signRefund(satPerVByte: Int64) -> Transaction {
        try! RefundBuilder.build(RefundRequest(contract: contract, lock: lock, destination: Self.walletAddress,
                                               feeRate: try! FeeRate(satPerVByte: satPerVByte)),
                                 refundKey: Self.clientRefundKey).transaction
    }

    /// A machine brought to `phase` through the inputs a real swap sees.
    func machine(at phase: SubmarineClientPhase) -> SubmarineClientMachine {
        let fixture = self
        var machine = SubmarineClientMachine(settings: fixture.settings())
        let accepted: [SubmarineClientInput] = [.acceptReceived(fixture.signed(fixture.accept), tipHeight: Self.acceptTip)]
        let confirmed = accepted + [.lockFunded(fixture.funding()), .lockBroadcastAccepted, .lockConfirmations(1)]
        let refunding = confirmed + [.block(height: Self.timeout), .refundSigned(fixture.refund())]
        let path: [SubmarineClientInput]
        switch phase {
        case .quoted: path = []
        case .accepted: path = accepted
        case .lockIntent: path = accepted + [.lockFunded(fixture.funding())]
        case .lockBroadcast: path = accepted + [.lockFunded(fixture.funding()), .lockBroadcastAccepted]
        case .lockConfirmed: path = confirmed
        case .paid: path = confirmed + [.preimageLearned(Self.preimage, source: .providerStatus)]
        case .coopSigned: path = confirmed + [.coopClaimAgreed(preimage: Self.preimage, fixture.cosignedClaim)]
        case .coopRefundRequested: path = confirmed + [.coopRefundOffered, .coopRefundPrepared(fixture.refundRound)]
        case .refundBroadcast: path = refunding
        case .completed: path = confirmed + [.lockSpent(fixture.claim(), confirmations: 2)]
        case .refunded: path = refunding + [.refundConfirmations(fixture.refund().txid, 2)]
        case .abandoned: path = [.refused("no")]
        }
        for input in path { _ = machine.handle(input) }
        XCTAssertEqual(machine.phase, phase, "the path does not reach \(phase)")
        return machine
    }
}
