import Regtest

/// A fresh kernel-validated regtest chain; a missing kernel fails the test with the setup step.
public func makeRegtestChain(file: StaticString = #filePath, line: UInt = #line) throws -> RegtestChain {
    _ = try makeKernelVerifier(file: file, line: line)
    return try RegtestChain()
}
