#!/usr/bin/env python3
"""Writes small files reproducing each kind of real-world defect Mouchard must read (issue 17).

Python stdlib only, no randomness: running it again gives the same bytes. Output beside this script:

  odd-entries.har      4 entries: a data: URL, a non-string param value, one without request.url,
                       and a good HTTP/2 entry with every field a round trip must keep (pseudo-headers,
                       httpVersion "h2", cookies with attributes, pages/pageref, comments, _custom fields,
                       sizes, mimeType, statusText, a query string with '+')
  wifi-radiotap.pcap   802.11 + radiotap (FCS at end): beacon, an open-network QoS data frame with
                       LLC/SNAP carrying an HTTP GET, an encrypted (Protected) data frame
  ipv4-fragments.pcap  an HTTP POST in 3 IPv4 fragments sent out of order, and a datagram whose
                       fragments overlap (dropped, RFC 5722)
  ipv6-fragments.pcap  an HTTP GET in 2 IPv6 fragments
  sll2.pcap            Linux cooked v2 (what tcpdump -i any writes) with a GET
  qinq-pppoe.pcap      Ethernet, 802.1ad + 802.1Q tags, PPPoE session, with a GET
  h2c.pcap             cleartext HTTP/2 with prior knowledge, and an h2c Upgrade (101) exchange
  h2-streams.pcap      cleartext HTTP/2 with streams: prior knowledge on port 8080 (the dynamic table
                       reused, padding, CONTINUATION, a request body, a stream the client resets) and
                       an h2c Upgrade on port 80 (stream 1 answered in HTTP/2, then stream 3)
  unknown-link.pcap    link type 147 (USER0): nothing decodable
  lfs-pointer.pcap     a Git LFS pointer instead of a capture
  empty.pcap           0 bytes
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ip6(a):
    import ipaddress
    return ipaddress.IPv6Address(a).packed


def tcp(src, dst, sport, dport, seq, ack, flags, payload, v6=False):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
    if v6:
        pseudo = src + dst + struct.pack("!IxxxB", len(hdr) + len(payload), 6)
    else:
        pseudo = src + dst + struct.pack("!xBH", 6, len(hdr) + len(payload))
    c = checksum(pseudo + hdr + payload)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + payload


def ipv4(src, dst, payload, ident=1, offset=0, more=False, proto=6):
    flags = (0x2000 if more else 0) | (offset // 8)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, flags, 64, proto, 0, src, dst)
    return hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:] + payload


def ipv6(src, dst, payload, next_header=6):
    return struct.pack("!IHBB", 0x60000000, len(payload), next_header, 64) + src + dst + payload


def ether(payload, ethertype=0x0800):
    return b"\x02\0\0\0\0\x01" + b"\x02\0\0\0\0\x02" + struct.pack("!H", ethertype) + payload


def pcap(path, linktype, frames):
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for k, frame in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + k, 0, len(frame), len(frame)))
            f.write(frame)


def session(src, dst, sport, dport, request, response, v6=False, isn=1000):
    """Segments of a whole TCP exchange (handshake, request, response, FIN)."""
    c, s = isn, 5000
    out = [(src, dst, sport, dport, c, 0, 0x02, b""), (dst, src, dport, sport, s, c + 1, 0x12, b""),
           (src, dst, sport, dport, c + 1, s + 1, 0x10, b""),
           (src, dst, sport, dport, c + 1, s + 1, 0x18, request),
           (dst, src, dport, sport, s + 1, c + 1 + len(request), 0x18, response),
           (src, dst, sport, dport, c + 1 + len(request), s + 1 + len(response), 0x11, b""),
           (dst, src, dport, sport, s + 1 + len(response), c + 2 + len(request), 0x11, b"")]
    return [(a, b, tcp(a, b, sp, dp, sq, ak, fl, pl, v6)) for a, b, sp, dp, sq, ak, fl, pl in out]


PHONE, SERVER = ip4("192.168.1.20"), ip4("93.184.216.34")
GET = b"GET /track?idfa=AEBE52E7-03EE-455A-B3C4-E57283966239 HTTP/1.1\r\nHost: t.example\r\n\r\n"
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def wifi():
    radiotap = struct.pack("<BBHI", 0, 0, 18, 0x3) + b"\0" * 8 + bytes([0x10, 0])  # TSFT, Flags: FCS at end
    fcs = b"\xDE\xAD\xBE\xEF"
    beacon = bytes([0x80, 0x00, 0, 0]) + b"\xff" * 6 + b"\x02" * 6 + b"\x02" * 6 + b"\0\0" + b"\0" * 12
    frames = [radiotap + beacon + fcs]
    for a, b, seg in session(PHONE, SERVER, 40000, 80, GET, OK):
        to_ds = a == PHONE
        fc = bytes([0x88, 0x01 if to_ds else 0x02])  # QoS data, to-DS or from-DS
        mac = fc + b"\0\0" + b"\x02" * 18 + b"\x10\x00" + b"\x00\x00"
        frames.append(radiotap + mac + b"\xAA\xAA\x03\0\0\0\x08\x00" + ipv4(a, b, seg) + fcs)
    protected = bytes([0x88, 0x41]) + b"\0\0" + b"\x02" * 18 + b"\x20\x00" + b"\0\0" + b"\x01" * 40
    frames.append(radiotap + protected + fcs)
    pcap("wifi-radiotap.pcap", 127, frames)


def fragments4():
    body = b'{"email":"jane.doe@example.com","pad":"' + b"x" * 120 + b'"}'
    post = (b"POST /v1/events HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body
    frames = []
    for a, b, seg in session(PHONE, SERVER, 40001, 80, post, OK):
        if len(seg) > 100:
            parts = [(0, seg[:64]), (64, seg[64:128]), (128, seg[128:])]
            for off, part in (parts[2], parts[0], parts[1]):  # out of order
                frames.append(ether(ipv4(a, b, part, ident=77, offset=off, more=off != 128)))
        else:
            frames.append(ether(ipv4(a, b, seg)))
    # Overlapping fragments of another datagram: dropped whole.
    evil = tcp(PHONE, SERVER, 40002, 80, 1, 1, 0x18, b"GET /overlap HTTP/1.1\r\nHost: evil.example\r\n\r\n")
    frames.append(ether(ipv4(PHONE, SERVER, evil[:32], ident=78, offset=0, more=True)))
    frames.append(ether(ipv4(PHONE, SERVER, evil[24:], ident=78, offset=24, more=False)))
    pcap("ipv4-fragments.pcap", 1, frames)


def fragments6():
    a, b = ip6("2001:db8::20"), ip6("2001:db8::1")
    frames = []
    for s, d, seg in session(a, b, 40003, 80, GET, OK, v6=True):
        if len(seg) > 60:
            first, rest = seg[:48], seg[48:]
            frames.append(ether(ipv6(s, d, struct.pack("!BBHI", 6, 0, 0 | 1, 99) + first, 44), 0x86DD))
            frames.append(ether(ipv6(s, d, struct.pack("!BBHI", 6, 0, 48, 99) + rest, 44), 0x86DD))
        else:
            frames.append(ether(ipv6(s, d, seg), 0x86DD))
    pcap("ipv6-fragments.pcap", 1, frames)


def cooked_and_tags():
    frames = []
    for a, b, seg in session(PHONE, SERVER, 40004, 80, GET, OK):
        sll2 = struct.pack("!HHIHBB", 0x0800, 0, 2, 1, 4 if a == PHONE else 0, 6) + b"\x02" * 6 + b"\0\0"
        frames.append(sll2 + ipv4(a, b, seg))
    pcap("sll2.pcap", 276, frames)
    frames = []
    for a, b, seg in session(PHONE, SERVER, 40005, 80, GET, OK):
        ip = ipv4(a, b, seg)
        pppoe = struct.pack("!BBHH", 0x11, 0, 0x1234, len(ip) + 2) + b"\x00\x21" + ip
        tags = struct.pack("!HH", 10, 0x8100) + struct.pack("!HH", 20, 0x8864)
        frames.append(b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02" + struct.pack("!H", 0x88A8) + tags + pppoe)
    pcap("qinq-pppoe.pcap", 1, frames)


def h2c():
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    frames = [ether(ipv4(a, b, seg)) for a, b, seg in session(PHONE, SERVER, 40006, 8080, preface, b"\x00\x00\x00\x04\x01\x00\x00\x00\x00")]
    upgrade = (b"GET /h2c HTTP/1.1\r\nHost: t.example\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
               b"HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
    switching = b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    frames += [ether(ipv4(a, b, seg)) for a, b, seg in session(PHONE, SERVER, 40007, 80, upgrade, switching, isn=9000)]
    pcap("h2c.pcap", 1, frames)


def conversation(src, dst, sport, dport, payloads, isn=1000):
    """Segments of a TCP connection whose payloads alternate as given: [(from_client, bytes)]."""
    seq = [isn + 1, 5001]
    ends = [(src, dst, sport, dport), (dst, src, dport, sport)]
    out = [(src, dst, sport, dport, isn, 0, 0x02, b""), (dst, src, dport, sport, 5000, isn + 1, 0x12, b""),
           (src, dst, sport, dport, isn + 1, 5001, 0x10, b"")]
    for from_client, data in payloads:
        k = 0 if from_client else 1
        a, b, sp, dp = ends[k]
        out.append((a, b, sp, dp, seq[k], seq[1 - k], 0x18, data))
        seq[k] += len(data)
    out.append((src, dst, sport, dport, seq[0], seq[1], 0x11, b""))
    out.append((dst, src, dport, sport, seq[1], seq[0] + 1, 0x11, b""))
    return [(a, b, tcp(a, b, sp, dp, sq, ak, fl, pl)) for a, b, sp, dp, sq, ak, fl, pl in out]


def h2_frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def hpack_string(text):
    data = text.encode() if isinstance(text, str) else text
    assert len(data) < 127
    return bytes([len(data)]) + data


def hpack_indexed(index):
    return bytes([0x80 | index])


def hpack_integer(value, prefix_bits, first):
    """An HPACK integer (RFC 7541 §5.1) with `first`'s high bits as the pattern."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out, value = [first | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


def hpack_literal(name, value, index=False):
    """A literal field (incremental indexing when `index`); `name` is a static-table index or a string."""
    pattern, bits = (0x40, 6) if index else (0x00, 4)
    if isinstance(name, int):
        return hpack_integer(name, bits, pattern) + hpack_string(value)
    return bytes([pattern]) + hpack_string(name) + hpack_string(value)


def h2_streams():
    idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0, b"")
    settings = h2_frame(4, 0, 0, b"") + h2_frame(4, 1, 0, b"")
    # Stream 1: :authority and user-agent enter the client's dynamic table (62, then 62/63).
    get1 = (hpack_indexed(2) + hpack_indexed(6) + hpack_literal(1, "t.example", index=True)
            + hpack_literal(4, "/v1/ad?idfa=" + idfa) + hpack_literal("user-agent", "app/1.0", index=True))
    # Stream 3: both reused from the table; padded HEADERS, a JSON body.
    post3 = hpack_indexed(3) + hpack_indexed(6) + hpack_indexed(63) + hpack_literal(4, "/v1/events") + hpack_indexed(62) \
        + hpack_literal(31, "application/json")
    body3 = ('{"device":{"idfa":"%s"}}' % idfa).encode()
    # Stream 5: a header block split over HEADERS and CONTINUATION.
    get5 = hpack_indexed(2) + hpack_indexed(6) + hpack_indexed(63) + hpack_literal(4, "/v1/cont") + hpack_literal("x-idfa", idfa)
    # Stream 7: reset by the client before any answer.
    get7 = hpack_indexed(2) + hpack_indexed(6) + hpack_indexed(63) + hpack_literal(4, "/v1/cancel")
    client = (preface
              + h2_frame(1, 0x5, 1, get1)
              + h2_frame(1, 0x4 | 0x8, 3, bytes([4]) + post3 + b"\0" * 4)
              + h2_frame(0, 0x1, 3, body3)
              + h2_frame(1, 0x1, 5, get5[:5]) + h2_frame(9, 0x4, 5, get5[5:])
              + h2_frame(1, 0x5, 7, get7) + h2_frame(3, 0, 7, struct.pack(">I", 8)))
    server = (settings
              + h2_frame(1, 0x4, 1, hpack_indexed(8) + hpack_literal(31, "text/plain")) + h2_frame(0, 0x1, 1, b"ok")
              + h2_frame(1, 0x5, 3, hpack_literal(8, "201"))
              + h2_frame(1, 0x4, 5, hpack_indexed(8)) + h2_frame(0, 0x8 | 0x1, 5, bytes([2]) + b"cont" + b"\0\0"))
    frames = [ether(ipv4(a, b, seg)) for a, b, seg in conversation(PHONE, SERVER, 40010, 8080, [(True, client), (False, server)])]
    upgrade = ("GET /h2c?idfa=%s HTTP/1.1\r\nHost: t.example\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
               "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n" % idfa).encode()
    switching = (b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n" + settings
                 + h2_frame(1, 0x4, 1, hpack_indexed(8)) + h2_frame(0, 0x1, 1, b"upgraded"))
    after = preface + h2_frame(1, 0x5, 3, hpack_indexed(2) + hpack_indexed(6) + hpack_literal(1, "t.example") + hpack_literal(4, "/after-upgrade"))
    answer = h2_frame(1, 0x5, 3, hpack_indexed(9))
    frames += [ether(ipv4(a, b, seg)) for a, b, seg in
               conversation(PHONE, SERVER, 40011, 80, [(True, upgrade), (False, switching), (True, after), (False, answer)], isn=9000)]
    pcap("h2-streams.pcap", 1, frames)


def not_captures():
    pcap("unknown-link.pcap", 147, [b"\x01\x02\x03\x04" * 10, b"\x05" * 20])
    with open(os.path.join(HERE, "lfs-pointer.pcap"), "w") as f:
        f.write("version https://git-lfs.github.com/spec/v1\n"
                "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
    open(os.path.join(HERE, "empty.pcap"), "wb").close()


def har():
    good = {
        "pageref": "page_1", "startedDateTime": "2024-05-01T10:00:00.123+02:00", "time": 12.5,
        "comment": "entry comment", "_priority": "High", "_resourceType": "xhr", "connection": "443",
        "serverIPAddress": "[2001:db8::1]",
        "request": {
            "method": "GET", "url": "https://api.example/v1/search?q=a+b&idfa=AEBE52E7-03EE-455A-B3C4-E57283966239",
            "httpVersion": "h2",
            "headers": [{"name": ":method", "value": "GET"}, {"name": ":authority", "value": "api.example"},
                        {"name": ":scheme", "value": "https"}, {"name": ":path", "value": "/v1/search?q=a+b&idfa=AEBE52E7-03EE-455A-B3C4-E57283966239"},
                        {"name": "cookie", "value": "sid=abc"}, {"name": "user-agent", "value": "App/1.0"}],
            "cookies": [{"name": "sid", "value": "abc", "path": "/", "domain": "api.example", "httpOnly": True, "secure": True}],
            "queryString": [{"name": "q", "value": "a+b"}, {"name": "idfa", "value": "AEBE52E7-03EE-455A-B3C4-E57283966239"}],
            "headersSize": 321, "bodySize": 0, "comment": "request comment",
        },
        "response": {
            "status": 200, "statusText": "", "httpVersion": "h2",
            "headers": [{"name": ":status", "value": "200"}, {"name": "content-type", "value": "application/json; charset=utf-8"},
                        {"name": "set-cookie", "value": "sid=def; Path=/; HttpOnly; Secure; SameSite=Lax"}],
            "cookies": [{"name": "sid", "value": "def", "path": "/", "httpOnly": True, "secure": True, "sameSite": "Lax"}],
            "content": {"size": 11, "compression": 0, "mimeType": "application/json", "text": "{\"ok\":true}", "comment": "c"},
            "redirectURL": "", "headersSize": 120, "bodySize": 11, "_transferSize": 140,
        },
        "cache": {}, "timings": {"blocked": 0.5, "dns": -1, "connect": -1, "ssl": -1, "send": 1, "wait": 10, "receive": 1, "_queued": 0.25},
    }
    data_url = {"startedDateTime": "2024-05-01T10:00:01Z", "time": 0,
                "request": {"method": "GET", "url": "data:image/png;base64,iVBORw0KGgo=", "httpVersion": "", "headers": [],
                            "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "", "headers": [], "cookies": [],
                             "content": {"size": 8, "mimeType": "image/png"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
                "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}
    bad_param = json.loads(json.dumps(good))
    bad_param["request"]["method"] = "POST"
    bad_param["request"]["url"] = "https://api.example/v1/form"
    bad_param["request"]["postData"] = {"mimeType": "application/x-www-form-urlencoded",
                                        "params": [{"name": "n", "value": 42}]}
    no_url = json.loads(json.dumps(good))
    del no_url["request"]["url"]
    doc = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "browser": {"name": "Chrome", "version": "124"}, "comment": "log comment",
                   "pages": [{"startedDateTime": "2024-05-01T10:00:00.000+02:00", "id": "page_1", "title": "Example",
                              "pageTimings": {"onContentLoad": 100, "onLoad": 200}}],
                   "entries": [data_url, good, bad_param, no_url]}}
    with open(os.path.join(HERE, "odd-entries.har"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    wifi()
    fragments4()
    fragments6()
    cooked_and_tags()
    h2c()
    h2_streams()
    not_captures()
    har()
