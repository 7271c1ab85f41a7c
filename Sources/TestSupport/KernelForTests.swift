import Bitcoin
import XCTest

/// Bitcoin Core's script interpreter for tests. A missing library fails the test with the
/// setup step that provides it; it never skips.
public func makeKernelVerifier(file: StaticString = #filePath, line: UInt = #line) throws -> KernelVerifier {
    do {
        return try KernelVerifier()
    } catch {
        XCTFail("\(error). Tests that check scripts need Bitcoin Core's kernel: `make test` sets "
            + "PEERNODE_KERNEL_LIB; by hand, export PEERNODE_KERNEL_LIB=<repo>/.build/kernel/libbitcoinkernel.so",
            file: file, line: line)
        throw error
    }
}
