import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import TestSupport
import XCTest

/// A hub chain with its backend, and helpers shared by the wallet tests.
struct WalletFixture {
    let chain: RegtestChain
    let backend: RegtestChainBackend

    init(file: StaticString = #filePath, line: UInt = #line) throws {
        let verifier = try makeKernelVerifier(file: file, line: line)
        chain = try RegtestChain()
        backend = RegtestChainBackend(chain: chain, verifier: verifier)
    }

    func close() { chain.close() }

    static func seed(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 32) }

    func wallet(seed byte: UInt8 = 0x01, birthday: Int = 0, minimumConfirmations: Int = 1,
                undoDepth: Int = 144) throws -> Wallet {
        try Wallet(seed: Self.seed(byte),
                   configuration: WalletConfiguration(network: .regtest, birthdayHeight: birthday,
                                                      minimumConfirmations: minimumConfirmations, undoDepth: undoDepth),
                   backend: backend)
    }

    /// A P2TR script nobody in the test controls, to mine to and pay.
    static let elsewhere = Address.p2tr(outputKey: try! PrivateKey([UInt8](repeating: 0x77, count: 32))
        .xOnlyPublicKey.bytes)

    func mineElsewhere(_ count: Int) throws { try chain.mine(count, to: Self.elsewhere.script) }

    /// A taproot swap contract of the regtest network, distinct per `index`.
    static func contract(_ index: Int) throws -> SwapContract {
        let claim = try PrivateKey([UInt8](repeating: 0x11, count: 32)).publicKey
        let refund = try PrivateKey([UInt8](repeating: 0x22, count: 32)).publicKey
        let terms = try SwapTerms(network: .regtest, paymentHash: SHA256.hash(Array("swap \(index)".utf8)),
                                  claimPublicKey: claim, refundPublicKey: refund, timeoutHeight: 10_000)
        return try SwapContract(type: .taprootBoltz, terms: terms)
    }

    static func rate(_ satPerVByte: Int64) -> FeeRate { try! FeeRate(satPerVByte: satPerVByte) }

    /// The hub's mempool entry for `txid`, failing the test when it is not there.
    func mempoolEntry(_ txid: TransactionID, file: StaticString = #filePath, line: UInt = #line) throws -> MempoolEntryInfo {
        try XCTUnwrap(chain.mempoolEntry(txid), "\(txid) is not in the mempool", file: file, line: line)
    }

    func confirmations(of txid: TransactionID) -> Int? {
        guard let found = chain.transaction(txid), case .block(_, _, let confirmations, _) = found.location else { return nil }
        return confirmations
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<T>(_ expected: WalletError, file: StaticString = #filePath, line: UInt = #line,
                     _ body: () async throws -> T) async {
    do {
        _ = try await body()
        XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
    } catch let error as WalletError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}
