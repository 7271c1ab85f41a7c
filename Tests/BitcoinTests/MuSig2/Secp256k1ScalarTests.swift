import XCTest
@testable import Bitcoin

/// The scalar arithmetic MuSig2 runs on (libsecp256k1's secret-key functions, plus the
/// value 0 they refuse): the edges where a wrong reduction or a missed zero would show.
final class Secp256k1ScalarTests: XCTestCase {
    private let nMinusOne = -Secp256k1Scalar.one
    private let two = Secp256k1Scalar.one + .one

    func testZeroIsHandledWhereLibsecp256k1RefusesIt() {
        XCTAssertEqual(nMinusOne + .one, .zero, "n - 1 + 1 wraps to 0")
        XCTAssertEqual(Secp256k1Scalar.zero + two, two)
        XCTAssertEqual(two + .zero, two)
        XCTAssertEqual(-Secp256k1Scalar.zero, .zero)
        XCTAssertEqual(two * .zero, .zero)
        XCTAssertEqual(Secp256k1Scalar.zero * two, .zero)
        XCTAssertEqual(two - two, .zero)
    }

    func testReductionAndProducts() throws {
        XCTAssertEqual(nMinusOne.bytes, {
            var bytes = Secp256k1Scalar.orderBytes
            bytes[31] -= 1
            return bytes
        }())
        XCTAssertEqual(nMinusOne * nMinusOne, .one, "(-1)·(-1) = 1")
        XCTAssertEqual(nMinusOne * two, -two)
        XCTAssertEqual(nMinusOne + nMinusOne, -two, "a sum above n is reduced")
        // 2^256 - 1 reduces to 2^256 - 1 - n.
        let reduced = Secp256k1Scalar(reducing: [UInt8](repeating: 0xFF, count: 32))
        XCTAssertEqual(reduced + Secp256k1Scalar(reducing: Secp256k1Scalar.orderBytes), reduced, "n reduces to 0")
        XCTAssertEqual(Secp256k1Scalar(reducing: Secp256k1Scalar.orderBytes), .zero)
        XCTAssertNil(Secp256k1Scalar(exactly: Secp256k1Scalar.orderBytes))
        XCTAssertEqual(reduced.bytes.prefix(15), [UInt8](repeating: 0, count: 15)[...])
    }

    /// (a + b)·c = a·c + b·c for random values: the operations agree with each other.
    func testDistributivityOnRandomValues() throws {
        for _ in 0..<20 {
            let a = Secp256k1Scalar(reducing: Secp256k1Context.randomBytes(count: 32))
            let b = Secp256k1Scalar(reducing: Secp256k1Context.randomBytes(count: 32))
            let c = Secp256k1Scalar(reducing: Secp256k1Context.randomBytes(count: 32))
            XCTAssertEqual((a + b) * c, a * c + b * c)
            XCTAssertEqual(a - b, -(b - a))
            // And with the group: (a·b)·G = b·(a·G).
            XCTAssertEqual(CurvePoint.generator(times: a * b), CurvePoint.multiply(CurvePoint.generator(times: a), by: b))
        }
    }
}
