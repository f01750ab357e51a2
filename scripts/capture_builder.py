"""Byte builders shared by Mouchard's deterministic capture generators (Python 3 standard library only):
captures/example/make_example.py (the bundled demo) and Tests/Fixtures/make_fixtures.py (the test fixtures).

IPv4/TCP/UDP packets with real checksums, TCP sessions with real sequence numbers, DNS A exchanges, a
TLS 1.3 ClientHello (SNI, ALPN), classic pcap files, and the small encoders both generators use. Nothing
here is random: the same calls give the same bytes on every run.
"""
import hashlib
import struct
import zlib
from datetime import timedelta
from urllib.parse import quote

ACK, PSH, SYN, FIN = 0x10, 0x08, 0x02, 0x01


# ---------------------------------------------------------------- encoders
def gzip_bytes(data):
    """gzip with a zero mtime so the output never changes."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = compressor.compress(data) + compressor.flush()
    return out[:4] + b"\x00\x00\x00\x00" + out[8:]  # MTIME = 0 (zlib already writes 0; keep it explicit)


def form(pairs):
    """application/x-www-form-urlencoded text of (name, value) pairs."""
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def iso(when):
    """HAR time: ISO 8601 with milliseconds and Z."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def http_head(start_line, headers):
    """An HTTP/1 message head: start line, `Name: value` lines, the empty line."""
    return (start_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n").encode()


# ---------------------------------------------------------------- packets
def checksum(data):
    """The Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4(text):
    return bytes(int(p) for p in text.split("."))


class PacketLog:
    """The IPv4 packets of one device's session, each with its time and direction (from the device or to
    it); the caller frames them for a link type when it writes a file."""

    def __init__(self, device_ip, ttl_out=64, ttl_in=54, ident_out=0x3a10, ident_in=0x7c00):
        self.device_ip = device_ip
        self.records = []  # (time, from_device, packet)
        self.ttl = {True: ttl_out, False: ttl_in}
        self.ident = {True: ident_out, False: ident_in}

    def ip(self, when, src, dst, protocol, payload):
        out = src == self.device_ip
        ident = self.ident[out]
        self.ident[out] = (ident + 1) & 0xFFFF
        header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, self.ttl[out], protocol, 0,
                             ipv4(src), ipv4(dst))
        header = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
        self.records.append((when, out, header + payload))

    def tcp(self, when, src, sport, dst, dport, seq, ack, flags, payload=b"", options=b""):
        window = 65535 if src == self.device_ip else 64240
        header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                             (20 + len(options)) // 4 << 4, flags, window, 0, 0) + options
        pseudo = ipv4(src) + ipv4(dst) + struct.pack("!BBH", 0, 6, len(header) + len(payload))
        header = header[:16] + struct.pack("!H", checksum(pseudo + header + payload)) + header[18:]
        self.ip(when, src, dst, 6, header + payload)

    def udp(self, when, src, sport, dst, dport, payload):
        header = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
        pseudo = ipv4(src) + ipv4(dst) + struct.pack("!BBH", 0, 17, len(header) + len(payload))
        csum = checksum(pseudo + header + payload) or 0xFFFF
        self.ip(when, src, dst, 17, header[:6] + struct.pack("!H", csum) + payload)

    def sorted(self):
        """The records in time order (stable: packets of the same instant keep their order)."""
        return sorted(self.records, key=lambda r: r[0])


class TCPConnection:
    """One device-server TCP session with real sequence numbers: handshake, data both ways, FIN."""

    def __init__(self, log, server, port, client_port, when, seed_label):
        self.log, self.server, self.port, self.cport = log, server, port, client_port
        self.client = log.device_ip
        seed = hashlib.sha256(seed_label.encode()).digest()
        self.cseq, self.sseq = struct.unpack("!II", seed[:8])
        options = struct.pack("!BBH", 2, 4, 1460) + b"\x01\x01\x04\x02"  # MSS, NOP, NOP, SACK permitted
        log.tcp(when, self.client, client_port, server, port, self.cseq, 0, SYN, options=options)
        self.cseq += 1
        log.tcp(when + timedelta(milliseconds=18), server, port, self.client, client_port, self.sseq, self.cseq,
                SYN | ACK, options=options)
        self.sseq += 1
        log.tcp(when + timedelta(milliseconds=19), self.client, client_port, server, port, self.cseq, self.sseq, ACK)

    def client_send(self, when, data, segment=536, retransmit=None, late_duplicate=None):
        """Device segments, then the server's ACK. `retransmit`: index of a segment sent again 200 ms later
        (its ACK was lost); `late_duplicate`: index of a segment whose copy arrives after the next one
        (Wireshark: TCP Out-Of-Order, already acknowledged data)."""
        pieces = [(self.cseq + i, data[i:i + segment]) for i in range(0, len(data), segment)]
        for k, (seq, chunk) in enumerate(pieces):
            self.log.tcp(when, self.client, self.cport, self.server, self.port, seq, self.sseq, PSH | ACK, chunk)
            if k == retransmit:
                when += timedelta(milliseconds=200)
                self.log.tcp(when, self.client, self.cport, self.server, self.port, seq, self.sseq, PSH | ACK, chunk)
            if late_duplicate is not None and k == late_duplicate + 1:
                earlier_seq, earlier = pieces[late_duplicate]
                when += timedelta(microseconds=150)
                self.log.tcp(when, self.client, self.cport, self.server, self.port, earlier_seq, self.sseq,
                             PSH | ACK, earlier)
            when += timedelta(microseconds=300)
        self.cseq += len(data)
        self.log.tcp(when + timedelta(milliseconds=20), self.server, self.port, self.client, self.cport, self.sseq,
                     self.cseq, ACK)
        return when + timedelta(milliseconds=20)

    def server_send(self, when, data, segment=1400, swap_first_two=False):
        """Server segments, then the device's ACK. `swap_first_two`: the second segment is sent first (a
        gap, then the fill)."""
        pieces = [(self.sseq + i, data[i:i + segment]) for i in range(0, len(data), segment)]
        if swap_first_two and len(pieces) >= 2:
            pieces[0], pieces[1] = pieces[1], pieces[0]
        for seq, chunk in pieces:
            self.log.tcp(when, self.server, self.port, self.client, self.cport, seq, self.cseq, PSH | ACK, chunk)
            when += timedelta(microseconds=400)
        self.sseq += len(data)
        self.log.tcp(when + timedelta(milliseconds=1), self.client, self.cport, self.server, self.port, self.cseq,
                     self.sseq, ACK)
        return when + timedelta(milliseconds=1)

    def close(self, when):
        self.log.tcp(when, self.client, self.cport, self.server, self.port, self.cseq, self.sseq, FIN | ACK)
        self.cseq += 1
        self.log.tcp(when + timedelta(milliseconds=17), self.server, self.port, self.client, self.cport, self.sseq,
                     self.cseq, FIN | ACK)
        self.sseq += 1
        self.log.tcp(when + timedelta(milliseconds=18), self.client, self.cport, self.server, self.port, self.cseq,
                     self.sseq, ACK)


def dns_name(host):
    return b"".join(bytes([len(label)]) + label.encode() for label in host.split(".")) + b"\x00"


def dns_exchange(log, when, resolver, host, address, txid, sport):
    """An A query from the device and the resolver's answer 12 ms later; returns the time after it."""
    question = dns_name(host) + struct.pack("!HH", 1, 1)
    log.udp(when, log.device_ip, sport, resolver, 53, struct.pack("!HHHHHH", txid, 0x0100, 1, 0, 0, 0) + question)
    answer = struct.pack("!HHHIH", 0xC00C, 1, 1, 300, 4) + ipv4(address)
    response = struct.pack("!HHHHHH", txid, 0x8180, 1, 1, 0, 0) + question + answer
    log.udp(when + timedelta(milliseconds=12), resolver, 53, log.device_ip, sport, response)
    return when + timedelta(milliseconds=13)


def client_hello(host):
    """A TLS record holding a TLS 1.3 ClientHello for `host` (SNI, ALPN h2 and http/1.1, X25519 key share)."""
    seed = hashlib.sha256(("hello:" + host).encode()).digest()

    def ext(kind, data):
        return struct.pack("!HH", kind, len(data)) + data
    name = host.encode()
    sni = ext(0, struct.pack("!HBH", len(name) + 3, 0, len(name)) + name)
    groups = ext(10, struct.pack("!H", 6) + struct.pack("!HHH", 0x001D, 0x0017, 0x0018))
    points = ext(11, b"\x01\x00")
    sigalgs = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601]
    signatures = ext(13, struct.pack("!H", 2 * len(sigalgs)) + b"".join(struct.pack("!H", s) for s in sigalgs))
    protocols = b"".join(bytes([len(p)]) + p for p in (b"h2", b"http/1.1"))
    alpn = ext(16, struct.pack("!H", len(protocols)) + protocols)
    versions = ext(43, b"\x04\x03\x04\x03\x03")
    psk_modes = ext(45, b"\x01\x01")
    key_share = ext(51, struct.pack("!HHH", 36, 0x001D, 32) + hashlib.sha256(seed).digest())
    extensions = sni + groups + points + signatures + alpn + versions + psk_modes + key_share
    suites = [0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8]
    body = (b"\x03\x03" + seed + b"\x20" + hashlib.sha256(seed + b"sid").digest()
            + struct.pack("!H", 2 * len(suites)) + b"".join(struct.pack("!H", s) for s in suites)
            + b"\x01\x00" + struct.pack("!H", len(extensions)) + extensions)
    handshake = b"\x01" + struct.pack("!I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack("!H", len(handshake)) + handshake


# ---------------------------------------------------------------- files
def timestamp_parts(when, units):
    """Seconds and fraction (in 1/units) of a datetime."""
    total = int(round(when.timestamp() * units))
    return total // units, total % units


def pcap_file(frames, linktype, snaplen=65535, big_endian=False, nanoseconds=False):
    """A classic pcap file of (time, frame bytes) in the given order."""
    e = ">" if big_endian else "<"
    units = 1_000_000_000 if nanoseconds else 1_000_000
    out = [struct.pack(e + "IHHiIII", 0xA1B23C4D if nanoseconds else 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype)]
    for when, data in frames:
        sec, frac = timestamp_parts(when, units)
        out.append(struct.pack(e + "IIII", sec, frac, len(data), len(data)) + data)
    return b"".join(out)
