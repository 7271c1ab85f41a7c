import XCTest
@testable import Transport

final class HTTPBasicAuthTests: XCTestCase {
    /// RFC 4648 section 10.
    func testBase64Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==",
                       "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(HTTPBase64.encode(plain.bytes), encoded, plain)
        }
        XCTAssertEqual(HTTPBase64.encode([0xFB, 0xFF, 0xBF]), "+/+/")
    }

    func testBase64MatchesFoundation() {
        var generator = SeededGenerator(state: 3)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(HTTPBase64.encode(bytes), Data(bytes).base64EncodedString())
        }
    }

    /// RFC 7617 section 2.
    func testRFC7617Example() {
        let credentials = HTTPBasicCredentials(user: "Aladdin", password: "open sesame")
        XCTAssertEqual(credentials.authorizationValue, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        var headers = HTTPHeaders()
        headers.setBasicAuthorization(credentials)
        XCTAssertEqual(headers.first(name: "authorization"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    func testBitcoinCoreCookie() {
        let cookie = HTTPBasicCredentials(cookie: "__cookie__:a1b2:c3\n")
        XCTAssertEqual(cookie, HTTPBasicCredentials(user: "__cookie__", password: "a1b2:c3"))
        XCTAssertNil(HTTPBasicCredentials(cookie: "no colon"))
    }

    func testCredentialsNeverAppearInDescriptions() {
        var headers: HTTPHeaders = ["Host": "node", "Grpc-Metadata-macaroon": "0201036c6e64"]
        headers.setBasicAuthorization(HTTPBasicCredentials(user: "user", password: "hunter2"))
        let text = headers.description
        XCTAssertFalse(text.contains("hunter2") || text.contains("dXNlcjpodW50ZXIy") || text.contains("0201036c6e64"))
        XCTAssertTrue(text.contains("Host: node"))
    }
}
