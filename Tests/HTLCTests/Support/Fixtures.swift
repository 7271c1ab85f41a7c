import Bitcoin
@testable import HTLC
import XCTest

/// Fixed keys, preimage and lock for the spend tests (no randomness, so a failure repeats).
enum Fixture {
    static func key(_ byte: UInt8) -> PrivateKey {
        try! PrivateKey([UInt8](repeating: byte, count: 32))
    }

    static let claimKey = key(0x11)
    static let refundKey = key(0x22)
    static let strangerKey = key(0x33)
    static let preimage = [UInt8](repeating: 0x07, count: 32)
    static let paymentHash = SHA256.hash(preimage)
    /// A height whose CScriptNum is 3 bytes, as every mainnet height today is.
    static let timeout: UInt32 = 850_000
    static let lockValue: Int64 = 100_000
    static let lockOutPoint = OutPoint(txid: try! TransactionID(bytes: SHA256.hash(Array("lock".utf8))), index: 1)
    static let lock = LockOutput(outPoint: lockOutPoint, value: lockValue)

    static func terms(paymentHash: [UInt8] = paymentHash, timeout: UInt32 = timeout) -> SwapTerms {
        try! SwapTerms(network: .regtest, paymentHash: paymentHash, claimPublicKey: claimKey.publicKey,
                       refundPublicKey: refundKey.publicKey, timeoutHeight: timeout)
    }

    static func contract(_ type: ContractType, paymentHash: [UInt8] = paymentHash, timeout: UInt32 = timeout) -> SwapContract {
        try! SwapContract(type: type, terms: terms(paymentHash: paymentHash, timeout: timeout))
    }

    /// One address of each destination type, from fixed bytes.
    static func destination(_ type: DestinationType) -> Address {
        let key = key(0x44).publicKey
        switch type {
        case .p2pkh: return .p2pkh(pubkeyHash: Hash160.hash(key.compressed))
        case .p2sh: return .p2sh(scriptHash: Hash160.hash([0x51]))
        case .p2wpkh: return .p2wpkh(pubkeyHash: Hash160.hash(key.compressed))
        case .p2wsh: return .p2wsh(scriptHash: SHA256.hash([0x51]))
        case .p2tr: return .p2tr(outputKey: key.xOnlyPublicKey.bytes)
        }
    }

    static func claimRequest(_ contract: SwapContract, to destination: DestinationType, amount: Int64? = nil,
                             purpose: ClaimPurpose = .payContact, feeRate: FeeRate = try! FeeRate(satPerKvB: 2000),
                             blocksLeft: Int = 100) -> ClaimRequest {
        let fee = feeRate.fee(forVirtualSize: SpendSize.claim(contract: contract, destination: destination))
        return ClaimRequest(contract: contract, lock: lock, destination: Fixture.destination(destination),
                            amount: amount ?? lockValue - fee, purpose: purpose, feeRate: feeRate, blocksLeft: blocksLeft)
    }

    static func refundRequest(_ contract: SwapContract, to destination: DestinationType,
                              feeRate: FeeRate = try! FeeRate(satPerKvB: 2000)) -> RefundRequest {
        RefundRequest(contract: contract, lock: lock, destination: Fixture.destination(destination), feeRate: feeRate)
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrows<T>(_ expected: HTLCError, _ body: @autoclosure () throws -> T,
                        file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got no error", file: file, line: line)
    } catch let error as HTLCError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}
