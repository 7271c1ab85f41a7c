import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// Every claim and refund the builders sign goes through Bitcoin Core's own script
/// interpreter, and so do the spends that must fail: success, timeout and negative
/// witnesses, as Loop's HTLC tests do.
final class KernelSpendTests: XCTestCase {
    private var kernel: KernelVerifier!

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
    }

    private func claim(_ contract: SwapContract, to destination: DestinationType = .p2wpkh) throws -> Transaction {
        try ClaimBuilder().build(Fixture.claimRequest(contract, to: destination), claimKey: Fixture.claimKey,
                                 preimage: Fixture.preimage).transaction
    }

    private func refund(_ contract: SwapContract, to destination: DestinationType = .p2wpkh) throws -> Transaction {
        try RefundBuilder.build(Fixture.refundRequest(contract, to: destination), refundKey: Fixture.refundKey).transaction
    }

    private func spent(_ contract: SwapContract) -> TransactionOutput {
        contract.lockOutput(value: Fixture.lockValue)
    }

    // MARK: accepted

    func testClaimsToEveryDestinationTypeAreAcceptedForBothContracts() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            for destination in DestinationType.allCases {
                let tx = try claim(contract, to: destination)
                XCTAssertTrue(try kernel.accepts(tx, spending: spent(contract)), "\(type) claim to \(destination)")
                XCTAssertEqual(tx.inputs.count, 1)
                XCTAssertEqual(tx.outputs.count, 1)
                XCTAssertEqual(tx.inputs[0].sequence, 0xffff_fffd, "claims signal RBF")
                XCTAssertEqual(tx.version, 2)
                XCTAssertEqual(tx.outputs[0].scriptPubKey, Fixture.destination(destination).script)
            }
        }
    }

    func testRefundsToEveryDestinationTypeAreAcceptedForBothContracts() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            for destination in DestinationType.allCases {
                let tx = try refund(contract, to: destination)
                XCTAssertTrue(try kernel.accepts(tx, spending: spent(contract)), "\(type) refund to \(destination)")
                XCTAssertEqual(tx.lockTime, Fixture.timeout)
                XCTAssertNotEqual(tx.inputs[0].sequence, TransactionInput.finalSequence)
            }
        }
    }

    /// Small regtest heights push as OP_1...OP_16 or one byte; CLTV must read them too.
    func testSpendsWithSmallTimeoutsAreAccepted() throws {
        for type in ContractType.allCases {
            for timeout: UInt32 in [1, 16, 17, 127, 128, 255, 32_768] {
                let contract = Fixture.contract(type, timeout: timeout)
                XCTAssertTrue(try kernel.accepts(try claim(contract), spending: spent(contract)), "\(type) claim, timeout \(timeout)")
                XCTAssertTrue(try kernel.accepts(try refund(contract), spending: spent(contract)), "\(type) refund, timeout \(timeout)")
            }
        }
    }

    // MARK: rejected

    func testClaimWithWrongPreimageIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            var tx = try claim(contract)
            tx.inputs[0].witness.stack[1] = [UInt8](repeating: 0x08, count: 32)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type)")
        }
    }

    func testClaimSignedWithWrongKeyIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let unsigned = try claim(contract)
            let tx = try SpendSigner.sign(unsigned, contract: contract, lockValue: Fixture.lockValue,
                                          path: .claim(preimage: Fixture.preimage), key: Fixture.strangerKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type)")
        }
    }

    /// The provider's key cannot take the claim path, and the client's key cannot refund.
    func testKeysOnTheOtherPathAreRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let claimByProvider = try SpendSigner.sign(try claim(contract), contract: contract, lockValue: Fixture.lockValue,
                                                       path: .claim(preimage: Fixture.preimage), key: Fixture.refundKey)
            XCTAssertFalse(try kernel.accepts(claimByProvider, spending: spent(contract)), "\(type) claim by provider")
            let refundByClient = try SpendSigner.sign(try refund(contract), contract: contract, lockValue: Fixture.lockValue,
                                                      path: .refund, key: Fixture.claimKey)
            XCTAssertFalse(try kernel.accepts(refundByClient, spending: spent(contract)), "\(type) refund by client")
        }
    }

    func testRefundWithLockTimeBelowTimeoutIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            var early = try refund(contract)
            early.lockTime = Fixture.timeout - 1
            let tx = try SpendSigner.sign(early, contract: contract, lockValue: Fixture.lockValue, path: .refund,
                                          key: Fixture.refundKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type)")
        }
    }

    /// A final sequence disables nLockTime, so CHECKLOCKTIMEVERIFY fails whatever the lock time.
    func testRefundWithFinalSequenceIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            var final = try refund(contract)
            final.inputs[0].sequence = TransactionInput.finalSequence
            let tx = try SpendSigner.sign(final, contract: contract, lockValue: Fixture.lockValue, path: .refund,
                                          key: Fixture.refundKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type)")
        }
    }

    func testClaimWithPreimageOfAnotherLengthIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            for other in [Array(Fixture.preimage.dropLast()), Fixture.preimage + [0], []] {
                var tx = try claim(contract)
                tx.inputs[0].witness.stack[1] = other
                XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type), \(other.count)-byte preimage")
            }
        }
    }

    /// Audit C-1: a client that made its payment hash from a 33-byte value must not be able
    /// to claim with it (the provider could never settle with a 33-byte "preimage"). Every
    /// contract a provider offers checks the size in script, so consensus refuses the claim.
    func testEveryOfferedContractRefusesAClaimWithA33BytePreimage() throws {
        let longPreimage = [UInt8](repeating: 0x09, count: 33)
        for type in ContractType.allCases {
            let contract = Fixture.contract(type, paymentHash: SHA256.hash(longPreimage))
            let unsigned = try claim(Fixture.contract(type))
            let tx = try SpendSigner.sign(unsigned, contract: contract, lockValue: Fixture.lockValue,
                                          path: .claim(preimage: longPreimage), key: Fixture.claimKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type) takes a 33-byte preimage")
            let request = Fixture.claimRequest(contract, to: .p2wpkh)
            XCTAssertThrows(.invalidPreimageLength(33),
                            try ClaimBuilder().build(request, claimKey: Fixture.claimKey, preimage: longPreimage))
        }
    }

    /// A claim spends the lock at its exact value: signing for another amount fails.
    func testClaimSignedForAnotherLockValueIsRejected() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let tx = try SpendSigner.sign(try claim(contract), contract: contract, lockValue: Fixture.lockValue + 1,
                                          path: .claim(preimage: Fixture.preimage), key: Fixture.claimKey)
            XCTAssertFalse(try kernel.accepts(tx, spending: spent(contract)), "\(type)")
        }
    }

    // MARK: builder guards

    func testBuildersRefuseWrongSecrets() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let request = Fixture.claimRequest(contract, to: .p2tr)
            XCTAssertThrows(.preimageMismatch,
                            try ClaimBuilder().build(request, claimKey: Fixture.claimKey,
                                                     preimage: [UInt8](repeating: 0x08, count: 32)))
            XCTAssertThrows(.keyMismatch(role: "claim"),
                            try ClaimBuilder().build(request, claimKey: Fixture.refundKey, preimage: Fixture.preimage))
            XCTAssertThrows(.keyMismatch(role: "refund"),
                            try RefundBuilder.build(Fixture.refundRequest(contract, to: .p2tr), refundKey: Fixture.claimKey))
        }
    }
}
