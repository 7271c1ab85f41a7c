import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// The submarine (on-chain → Lightning) contracts: the reverse ones with the keys trading
/// places. The provider claims with the preimage its Lightning payment taught it; the
/// client refunds after the timeout. Every spend below goes through the kernel.
final class SubmarineContractTests: XCTestCase {
    private static let providerKey = Fixture.key(0x55)
    private static let clientKey = Fixture.key(0x66)
    private var kernel: KernelVerifier!

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
    }

    private static func terms(paymentHash: [UInt8] = Fixture.paymentHash, timeout: UInt32 = Fixture.timeout) -> SwapTerms {
        try! SwapTerms(network: .regtest, paymentHash: paymentHash, claimPublicKey: providerKey.publicKey,
                       refundPublicKey: clientKey.publicKey, timeoutHeight: timeout, roles: .submarine)
    }

    private static func contract(_ type: ContractType, paymentHash: [UInt8] = Fixture.paymentHash,
                                 timeout: UInt32 = Fixture.timeout) -> SwapContract {
        try! SwapContract(type: type, terms: terms(paymentHash: paymentHash, timeout: timeout))
    }

    private func providerClaim(_ contract: SwapContract, to destination: DestinationType = .p2tr) throws -> Transaction {
        try ClaimBuilder().build(Fixture.claimRequest(contract, to: destination, purpose: .swapOut),
                                 claimKey: Self.providerKey, preimage: Fixture.preimage).transaction
    }

    private func clientRefund(_ contract: SwapContract, to destination: DestinationType = .p2tr) throws -> Transaction {
        try RefundBuilder.build(Fixture.refundRequest(contract, to: destination), refundKey: Self.clientKey).transaction
    }

    private func spent(_ contract: SwapContract) -> TransactionOutput {
        contract.lockOutput(value: Fixture.lockValue)
    }

    // MARK: roles

    func testTheRolesNameWhoClaimsAndWhoRefunds() {
        XCTAssertEqual(ContractRoles.reverse.claimer, .client)
        XCTAssertEqual(ContractRoles.reverse.refunder, .provider)
        XCTAssertEqual(ContractRoles.submarine.claimer, .provider)
        XCTAssertEqual(ContractRoles.submarine.refunder, .client)
        let terms = Self.terms()
        XCTAssertEqual(terms.providerPublicKey, Self.providerKey.publicKey)
        XCTAssertEqual(terms.clientPublicKey, Self.clientKey.publicKey)
        XCTAssertEqual(Fixture.terms().roles, .reverse, "existing callers keep the reverse roles")
        XCTAssertEqual(Fixture.terms().providerPublicKey, Fixture.refundKey.publicKey)
        XCTAssertEqual(Fixture.terms().clientPublicKey, Fixture.claimKey.publicKey)
    }

    /// Same script builders, keys in the other leaves; the claim leaf keeps OP_SIZE 32.
    func testTaprootLeavesCarryTheProviderInTheClaimAndTheClientInTheRefund() {
        guard case .taprootBoltz(let contract) = Self.contract(.taprootBoltz) else { return XCTFail("not taproot") }
        XCTAssertEqual(contract.claimLeaf.script.description,
                       "OP_SIZE 20 OP_EQUALVERIFY OP_HASH160 \(RIPEMD160.hash(Fixture.paymentHash).hex) OP_EQUALVERIFY "
                       + "\(Self.providerKey.xOnlyPublicKey.bytes.hex) OP_CHECKSIG")
        XCTAssertEqual(contract.refundLeaf.script.description,
                       "\(Self.clientKey.xOnlyPublicKey.bytes.hex) OP_CHECKSIGVERIFY 50f80c OP_CHECKLOCKTIMEVERIFY")
        // The raw leaf bytes, written out by hand: 82 01 20 88 (OP_SIZE 32 OP_EQUALVERIFY) a9 14 <20> 88 20 <32> ac.
        XCTAssertEqual(contract.claimLeaf.script.bytes.hex,
                       "82012088a914" + RIPEMD160.hash(Fixture.paymentHash).hex + "8820"
                       + Self.providerKey.xOnlyPublicKey.bytes.hex + "ac")
        XCTAssertEqual(contract.refundLeaf.script.bytes.hex,
                       "20" + Self.clientKey.xOnlyPublicKey.bytes.hex + "ad0350f80cb1")
    }

    func testP2WSHScriptCarriesTheProviderInTheClaimBranch() {
        guard case .p2wsh(let contract) = Self.contract(.p2wsh) else { return XCTFail("not p2wsh") }
        XCTAssertEqual(contract.witnessScript.description,
                       "OP_IF OP_SIZE 20 OP_EQUALVERIFY OP_SHA256 \(Fixture.paymentHash.hex) OP_EQUALVERIFY "
                       + "\(Self.providerKey.publicKey.compressed.hex) OP_CHECKSIG "
                       + "OP_ELSE 50f80c OP_CHECKLOCKTIMEVERIFY OP_DROP \(Self.clientKey.publicKey.compressed.hex) OP_CHECKSIG OP_ENDIF")
    }

    /// The internal key is KeyAgg(provider, client) in both directions: the same two
    /// parties get the same internal key whichever way they swap, and putting the claim
    /// key first (as a copy of the reverse code would) gives another key.
    func testTheInternalKeyAggregatesTheProviderFirstInBothDirections() throws {
        guard case .taprootBoltz(let submarine) = Self.contract(.taprootBoltz) else { return XCTFail("not taproot") }
        let reverseTerms = try SwapTerms(network: .regtest, paymentHash: Fixture.paymentHash,
                                         claimPublicKey: Self.clientKey.publicKey, refundPublicKey: Self.providerKey.publicKey,
                                         timeoutHeight: Fixture.timeout)
        guard case .taprootBoltz(let reverse) = try SwapContract(type: .taprootBoltz, terms: reverseTerms) else {
            return XCTFail("not taproot")
        }
        let expected = try MuSig2KeyAggregation(publicKeys: [Self.providerKey.publicKey, Self.clientKey.publicKey]).xOnlyPublicKey
        XCTAssertEqual(submarine.internalKey, expected)
        XCTAssertEqual(reverse.internalKey, expected)
        let claimFirst = try MuSig2KeyAggregation(publicKeys: [Self.clientKey.publicKey, Self.providerKey.publicKey]).xOnlyPublicKey
        XCTAssertNotEqual(submarine.internalKey, claimFirst)
        XCTAssertNotEqual(submarine.outputKey, reverse.outputKey, "the leaves differ, so the outputs do")
    }

    /// Pinned addresses for the fixed keys (0x55… provider, 0x66… client, hash SHA256(0x07 × 32),
    /// timeout 850000): a change to the scripts, the key order or the tweak shows up here.
    func testPinnedSubmarineAddresses() {
        XCTAssertEqual(Self.contract(.taprootBoltz).encodedAddress, SubmarineVectors.taprootAddress)
        XCTAssertEqual(Self.contract(.p2wsh).encodedAddress, SubmarineVectors.p2wshAddress)
        XCTAssertTrue(Self.contract(.taprootBoltz).description.hasPrefix("taproot_boltz submarine swap contract on regtest"))
        XCTAssertTrue(Self.contract(.p2wsh).description.contains("claim:  the provider, with the preimage"))
        XCTAssertTrue(Self.contract(.p2wsh).description.contains("refund: the client, from block 850000"))
    }

    // MARK: the kernel accepts

    func testTheProvidersClaimWithThePreimageIsAcceptedToEveryDestination() throws {
        for type in ContractType.allCases {
            let contract = Self.contract(type)
            for destination in DestinationType.allCases {
                let tx = try providerClaim(contract, to: destination)
                XCTAssertTrue(try kernel.accepts(tx, spending: spent(contract)), "\(type) provider claim to \(destination)")
                XCTAssertEqual(tx.inputs[0].sequence, 0xffff_fffd)
            }
        }
    }

    func testTheClientsRefundAfterTheTimeoutIsAcceptedToEveryDestination() throws {
        for type in ContractType.allCases {
            let contract = Self.contract(type)
            for destination in DestinationType.allCases {
                let tx = try clientRefund(contract, to: destination)
                XCTAssertTrue(try kernel.accepts(tx, spending: spent(contract)), "\(type) client refund to \(destination)")
                XCTAssertEqual(tx.lockTime, Fixture.timeout)
            }
        }
    }

    // MARK: the kernel refuses

    func testAClaimWithA33BytePreimageIsRefused() throws {
        let longPreimage = [UInt8](repeating: 0x09, count: 33)
        for type in ContractType.allCases {
            let contract = Self.contract(type, paymentHash: SHA256.hash(longPreimage))
            let tx = try SpendSigner.sign(try providerClaim(Self.contract(type)), contract: contract,
                                          lockValue: Fixture.lockValue, path: .claim(preimage: longPreimage),
                                          key: Self.providerKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type) takes a 33-byte preimage")
        }
    }

    func testARefundBeforeTheTimeoutIsRefused() throws {
        for type in ContractType.allCases {
            let contract = Self.contract(type)
            var early = try clientRefund(contract)
            early.lockTime = Fixture.timeout - 1
            let tx = try SpendSigner.sign(early, contract: contract, lockValue: Fixture.lockValue, path: .refund,
                                          key: Self.clientKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type) refund at timeout − 1")
        }
    }

    /// The client cannot take the claim path even with the preimage (it knows it: it is
    /// its payee's, or its own), and the provider cannot refund.
    func testTheClientCannotClaimAndTheProviderCannotRefund() throws {
        for type in ContractType.allCases {
            let contract = Self.contract(type)
            let claimByClient = try SpendSigner.sign(try providerClaim(contract), contract: contract,
                                                     lockValue: Fixture.lockValue, path: .claim(preimage: Fixture.preimage),
                                                     key: Self.clientKey)
            XCTAssertFalse(try kernel.accepts(claimByClient, spending: spent(contract)), "\(type) claim by the client")
            let refundByProvider = try SpendSigner.sign(try clientRefund(contract), contract: contract,
                                                        lockValue: Fixture.lockValue, path: .refund, key: Self.providerKey)
            XCTAssertFalse(try kernel.accepts(refundByProvider, spending: spent(contract)), "\(type) refund by the provider")
            XCTAssertThrows(.keyMismatch(role: "claim"),
                            try ClaimBuilder().build(Fixture.claimRequest(contract, to: .p2tr), claimKey: Self.clientKey,
                                                     preimage: Fixture.preimage))
        }
    }

    // MARK: sizes

    /// The submarine spends are exactly as large as the reverse ones (same scripts, keys
    /// of the same size). docs/HTLC.md lists the provider's claim and the client's refund.
    func testSubmarineSpendsAreAsLargeAsTheReverseOnesAndMatchSignedTransactions() throws {
        var table: [String] = []
        for type in ContractType.allCases {
            let contract = Self.contract(type)
            for destination in DestinationType.allCases {
                let claim = SpendSize.claim(contract: contract, destination: destination)
                let refund = SpendSize.refund(contract: contract, destination: destination)
                XCTAssertEqual(claim, SpendSize.claim(contract: Fixture.contract(type), destination: destination))
                XCTAssertEqual(refund, SpendSize.refund(contract: Fixture.contract(type), destination: destination))
                let signedClaim = try providerClaim(contract, to: destination).virtualSize
                let signedRefund = try clientRefund(contract, to: destination).virtualSize
                let slack = type == .taprootBoltz ? 0...0 : 0...1
                XCTAssertTrue(slack.contains(claim - signedClaim), "\(type) claim to \(destination): \(claim) vs \(signedClaim)")
                XCTAssertTrue(slack.contains(refund - signedRefund), "\(type) refund to \(destination): \(refund) vs \(signedRefund)")
                table.append("| \(type) | \(destination) | \(claim) | \(refund) |")
            }
        }
        XCTAssertEqual(SpendSize.claim(contract: Self.contract(.taprootBoltz), destination: .p2tr), 152)
        XCTAssertEqual(SpendSize.refund(contract: Self.contract(.taprootBoltz), destination: .p2tr), 138)
        XCTAssertEqual(SpendSize.claim(contract: Self.contract(.p2wsh), destination: .p2tr), 152)
        XCTAssertEqual(SpendSize.refund(contract: Self.contract(.p2wsh), destination: .p2tr), 144)
        print(table.joined(separator: "\n"))
    }
}

/// Addresses pinned from the first run of the builders (regtest).
enum SubmarineVectors {
    static let taprootAddress = "bcrt1p7sp2rf453kvkj0dndkdkuyxmcnu5sd6cxr4u0jvpqq7j70furvaqd7a0at"
    static let p2wshAddress = "bcrt1qsl4v6sw96dm3k9mjv4kc8z7xsufhu3vgmugfevtuakwa2c85v4tqzr82qv"
}
