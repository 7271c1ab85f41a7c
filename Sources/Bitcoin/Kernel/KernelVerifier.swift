#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks Bitcoin Core's own script interpreter (libbitcoinkernel) whether a transaction input
/// validly spends its output. peernode never judges its own scripts: every transaction it
/// builds is checked here, so a disagreement with Core shows up in tests, not on chain.
///
/// The transaction goes to Core as the bytes peernode serializes, so a verdict also proves
/// that the serialization is one Core reads back.
public struct KernelVerifier: Sendable {
    /// The environment variable the build sets to the library's path.
    public static let libraryPathVariable = "PEERNODE_KERNEL_LIB"

    let library: KernelLibrary

    /// The path the library was loaded from.
    public var libraryPath: String { library.path }

    /// Loads libbitcoinkernel from `libraryPath`, or from `$PEERNODE_KERNEL_LIB` when nil.
    /// Throws `kernelUnavailable` with the setup step when it cannot be loaded.
    public init(libraryPath: String? = nil) throws {
        let path: String
        if let libraryPath {
            path = libraryPath
        } else if let value = getenv(Self.libraryPathVariable), value.pointee != 0 {
            path = String(cString: value)
        } else {
            throw BitcoinError.kernelUnavailable("\(Self.libraryPathVariable) is not set; \(KernelLibrary.setupHint)")
        }
        library = try KernelLibrary.load(path: path)
    }

    /// Whether input `inputIndex` of `transaction` validly spends `spentOutputs[inputIndex]`
    /// under `flags`. `spentOutputs` holds the output spent by every input, in input order:
    /// taproot signatures commit to all of them, so the kernel always gets the full set.
    ///
    /// A script that fails is `false`, never an error. Errors mean the question could not be
    /// asked: an index out of range, a wrong number of spent outputs, flags the kernel does not
    /// accept, a transaction Core cannot read, or an error status from the kernel.
    public func verify(transaction: Transaction, inputIndex: Int, spentOutputs: [TransactionOutput],
                       flags: ScriptVerificationFlags = .all) throws -> Bool {
        guard transaction.inputs.indices.contains(inputIndex) else {
            throw BitcoinError.invalidTransaction(
                "input index \(inputIndex) is out of range for a transaction with \(transaction.inputs.count) inputs")
        }
        return try withKernelTransaction(transaction, spentOutputs: spentOutputs, flags: flags) { prepared in
            try prepared.verify(inputIndex: inputIndex)
        }
    }

    /// Whether every input is valid; the transaction is handed to the kernel once.
    public func verifyAll(transaction: Transaction, spentOutputs: [TransactionOutput],
                          flags: ScriptVerificationFlags = .all) throws -> Bool {
        guard !transaction.inputs.isEmpty else {
            throw BitcoinError.invalidTransaction("a transaction without inputs has nothing to verify")
        }
        return try withKernelTransaction(transaction, spentOutputs: spentOutputs, flags: flags) { prepared in
            for index in transaction.inputs.indices where try !prepared.verify(inputIndex: index) {
                return false
            }
            return true
        }
    }

    /// Creates the kernel's copies of the transaction and its spent outputs, runs `body`, and
    /// destroys every handle exactly once on the way out (each `defer` owns one set).
    private func withKernelTransaction<R>(_ transaction: Transaction, spentOutputs: [TransactionOutput],
                                          flags: ScriptVerificationFlags,
                                          _ body: (PreparedTransaction) throws -> R) throws -> R {
        // The kernel asserts (aborting the process) on unknown flag bits and on a spent-output
        // count that differs from the input count, so both are refused here first.
        guard flags.isSubset(of: .all) else {
            throw BitcoinError.invalidScript(
                "verification flags 0x\(String(flags.rawValue, radix: 16)) include bits libbitcoinkernel does not accept")
        }
        guard spentOutputs.count == transaction.inputs.count else {
            throw BitcoinError.invalidTransaction(
                "\(spentOutputs.count) spent outputs given for \(transaction.inputs.count) inputs; one per input is needed")
        }
        let lib = library
        let raw = transaction.serialized
        guard let tx = withNonNullBytes(raw, lib.transactionCreate) else {
            throw BitcoinError.invalidTransaction(
                "btck_transaction_create could not deserialize the \(raw.count) bytes peernode serialized")
        }
        defer { lib.transactionDestroy(tx) }

        var scripts: [OpaquePointer] = []
        defer { scripts.forEach { lib.scriptPubkeyDestroy($0) } }
        var outputs: [OpaquePointer?] = []
        defer { outputs.forEach { lib.transactionOutputDestroy($0) } }
        for output in spentOutputs {
            guard let script = withNonNullBytes(output.scriptPubKey.bytes, lib.scriptPubkeyCreate) else {
                throw BitcoinError.kernelCallFailed(function: "btck_script_pubkey_create", status: noHandleStatus)
            }
            scripts.append(script)
            guard let txOut = lib.transactionOutputCreate(script, output.value) else {
                throw BitcoinError.kernelCallFailed(function: "btck_transaction_output_create", status: noHandleStatus)
            }
            outputs.append(txOut)
        }
        let precomputed = outputs.withUnsafeBufferPointer {
            lib.precomputedTransactionDataCreate(tx, $0.baseAddress, $0.count)
        }
        guard let precomputed else {
            throw BitcoinError.kernelCallFailed(function: "btck_precomputed_transaction_data_create", status: noHandleStatus)
        }
        defer { lib.precomputedTransactionDataDestroy(precomputed) }

        return try body(PreparedTransaction(library: lib, transaction: tx, precomputed: precomputed,
                                            scripts: scripts, amounts: spentOutputs.map(\.value), flags: flags))
    }
}

/// The `status` reported when a kernel constructor returns no handle (those calls have no
/// status of their own; the kernel's statuses are all non-negative).
private let noHandleStatus = -1

/// Borrowed kernel handles for one transaction; valid only inside `withKernelTransaction`.
private struct PreparedTransaction {
    let library: KernelLibrary
    let transaction: OpaquePointer
    let precomputed: OpaquePointer
    let scripts: [OpaquePointer]
    let amounts: [Int64]
    let flags: ScriptVerificationFlags

    func verify(inputIndex: Int) throws -> Bool {
        var status: UInt8 = 0
        let result = library.scriptPubkeyVerify(scripts[inputIndex], amounts[inputIndex], transaction, precomputed,
                                                UInt32(inputIndex), flags.rawValue, &status)
        // A non-zero status means Core did not evaluate the script at all (1: invalid flag
        // combination such as WITNESS without P2SH, 2: spent outputs required for TAPROOT).
        guard status == 0 else {
            throw BitcoinError.kernelCallFailed(function: "btck_script_pubkey_verify", status: Int(status))
        }
        return result == 1
    }
}

/// Calls `body` with a non-null pointer even for empty input: an empty array may have no
/// base address, and the kernel's constructors are only documented for valid pointers.
private func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawPointer?, Int) -> R) -> R {
    if bytes.isEmpty {
        var placeholder: UInt8 = 0
        return withUnsafeBytes(of: &placeholder) { body($0.baseAddress, 0) }
    }
    return bytes.withUnsafeBytes { body($0.baseAddress, $0.count) }
}
