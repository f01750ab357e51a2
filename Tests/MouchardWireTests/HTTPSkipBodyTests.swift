import Testing

@testable import MouchardWire

/// Passing over body bytes past the reader's cap (`discardableBodyBytes`, `skipBody`): the bytes
/// are counted, never read; the last byte of a length-framed body or chunk is always fed, so the
/// parser itself ends the message; framing stays exact for the next message.
struct HTTPSkipBodyTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func lengthFramedBodyPastTheCap() throws {
        var reader = HTTPMessageReader(parser: HTTPResponseParser(), bodyLimit: 10)
        var got: [HTTPParsedResponse] = []
        try reader.feed(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), into: &got)
        #expect(reader.discardableBodyBytes == 89)
        reader.skipBody(89)
        #expect(reader.discardableBodyBytes == 0)
        try reader.feed(Self.bytes("zHTTP/1.1 204 No Content\r\n\r\n"), into: &got)
        #expect(got.count == 2)
        #expect(got[0].body == Self.bytes("0123456789") && got[0].bodyLength == 100 && got[0].bodyTruncated)
        #expect(got[1].head.status == 204)
    }

    @Test func nothingIsDiscardableBelowTheCap() throws {
        var reader = HTTPMessageReader(parser: HTTPResponseParser(), bodyLimit: 50)
        var got: [HTTPParsedResponse] = []
        try reader.feed(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), into: &got)
        #expect(reader.discardableBodyBytes == 0)
        var wire = HTTPMessageReader(parser: HTTPResponseParser(), bodyLimit: 0, keepsWireBytes: true)
        try wire.feed(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"), into: &got)
        #expect(wire.discardableBodyBytes == 0)
    }

    @Test func chunkedAndUntilCloseBodies() throws {
        var chunked = HTTPMessageReader(parser: HTTPRequestParser(), bodyLimit: 2)
        var requests: [HTTPParsedRequest] = []
        try chunked.feed(Self.bytes("POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n20\r\nab"), into: &requests)
        #expect(chunked.discardableBodyBytes == 29)
        chunked.skipBody(29)
        try chunked.feed(Self.bytes("c\r\n0\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n"), into: &requests)
        #expect(requests.count == 2 && requests[0].bodyLength == 32 && requests[0].body == Self.bytes("ab"))
        #expect(requests[1].head.target == "/next")

        var close = HTTPMessageReader(parser: HTTPResponseParser(), bodyLimit: 3)
        var responses: [HTTPParsedResponse] = []
        try close.feed(Self.bytes("HTTP/1.0 200 OK\r\n\r\nabcdef"), into: &responses)
        #expect(close.discardableBodyBytes == Int.max)
        close.skipBody(1000)
        try close.finish(into: &responses)
        #expect(responses.count == 1 && responses[0].bodyLength == 1006 && responses[0].body == Self.bytes("abc"))
    }
}
