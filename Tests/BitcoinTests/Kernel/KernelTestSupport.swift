import CSecp256k1
import XCTest
@testable import Bitcoin

/// The kernel for tests. Its absence fails the test (never a skip) with the setup step.
func makeKernelVerifier(file: StaticString = #filePath, line: UInt = #line) throws -> KernelVerifier {
    do {
        return try KernelVerifier()
    } catch {
        XCTFail("\(error). Tests that check scripts need Bitcoin Core's kernel: `make test` sets "
            + "PEERNODE_KERNEL_LIB; by hand, export PEERNODE_KERNEL_LIB=<repo>/.build/kernel/libbitcoinkernel.so",
            file: file, line: line)
        throw error
    }
}

/// A vector row that does not have the shape its file promises: a test failure, not a skip.
struct MalformedRow: Error, CustomStringConvertible {
    let why: String
    var description: String { "malformed vector row: \(why)" }
}

/// Core's script_tests tapscript helper: a one-leaf taproot tree (leaf version 0xc0) over
/// `key0` of Core's test KeyData, whose private key is 1. Returns the output key for
/// `OP_1 <key>` and the leaf's control block, as `TaprootBuilder` makes them.
enum SingleLeafTaproot {
    static let leafVersion: UInt8 = 0xc0

    static func commit(leafScript: [UInt8]) throws -> (outputKey: [UInt8], controlBlock: [UInt8]) {
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            throw MalformedRow(why: "secp256k1 context")
        }
        defer { secp256k1_context_destroy(context) }

        let key0 = [UInt8](repeating: 0, count: 31) + [1]
        var pubkey = secp256k1_pubkey()
        var internalKey = secp256k1_xonly_pubkey()
        guard secp256k1_ec_pubkey_create(context, &pubkey, key0) == 1,
              secp256k1_xonly_pubkey_from_pubkey(context, &internalKey, nil, &pubkey) == 1 else {
            throw MalformedRow(why: "key0 public key")
        }
        var internalBytes = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(context, &internalBytes, &internalKey)

        var leaf = ByteWriter()
        leaf.write(leafVersion)
        leaf.writeVarBytes(leafScript)
        let leafHash = TaggedHash.hash(tag: "TapLeaf", leaf.bytes)
        // One leaf: the Merkle root is the leaf hash and the control block has no path.
        let tweak = TaggedHash.hash(tag: "TapTweak", internalBytes + leafHash)

        var tweaked = secp256k1_pubkey()
        var output = secp256k1_xonly_pubkey()
        var parity: Int32 = 0
        guard secp256k1_xonly_pubkey_tweak_add(context, &tweaked, &internalKey, tweak) == 1,
              secp256k1_xonly_pubkey_from_pubkey(context, &output, &parity, &tweaked) == 1 else {
            throw MalformedRow(why: "taproot tweak")
        }
        var outputBytes = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(context, &outputBytes, &output)
        return (outputBytes, [leafVersion | UInt8(parity)] + internalBytes)
    }
}
