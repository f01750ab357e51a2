#!/usr/bin/env python3
"""Synthesizes a pcap of cleartext HTTP/1.1 traffic between a phone-like client and a few servers,
for bench/sniff.sh. Written packet by packet (Ethernet/IPv4/TCP, 3-way handshakes, keep-alive
connections with several requests, requests split over segments, chunked and gzip request bodies,
responses of 2-40 KB cut into 1448-byte segments, some retransmitted and reordered segments, FIN
teardown), plus DNS answers and TLS ClientHellos so every stage of the sniffer is exercised.

Synthesized rather than captured with tcpdump on lo: capturing hundreds of MB on loopback drops
packets under load (the machine is shared), and a deterministic file makes runs comparable.

usage: make_http_capture.py OUT.pcap SIZE_MB
"""
import gzip
import random
import struct
import sys

out_path, size_mb = sys.argv[1], int(sys.argv[2])
limit = size_mb * 1_000_000
rng = random.Random(42)
f = open(out_path, "wb", buffering=1 << 20)
f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
written = 24
t = 1_760_000_000.0
MAC = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01"
CLIENT = bytes([192, 168, 4, 20])


def record(frame):
    global written, t
    t += 0.0002
    sec = int(t)
    f.write(struct.pack("<IIII", sec, int((t - sec) * 1e6), len(frame), len(frame)))
    f.write(frame)
    written += 16 + len(frame)


def ipv4(src, dst, proto, payload):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0, src, dst) + payload


def tcp_frame(src, dst, sport, dport, seq, ack, flags, payload=b""):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 0x50, flags, 65535, 0, 0) + payload
    return MAC + b"\x08\x00" + ipv4(src, dst, 6, tcp)


def udp_frame(src, dst, sport, dport, payload):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return MAC + b"\x08\x00" + ipv4(src, dst, 17, udp)


def dns_answer(name, address):
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
    header = struct.pack("!HHHHHH", rng.randrange(65536), 0x8180, 1, 1, 0, 0)
    answer = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + address
    return header + q + struct.pack("!HH", 1, 1) + answer


def client_hello(sni):
    name = sni.encode()
    sni_ext = struct.pack("!HHHBH", 0, len(name) + 5, len(name) + 3, 0, len(name)) + name
    alpn = b"\x00\x10\x00\x0e\x00\x0c\x02h2\x08http/1.1"
    exts = sni_ext + alpn
    body = b"\x03\x03" + bytes(32) + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00" + struct.pack("!H", len(exts)) + exts
    hs = b"\x01" + struct.pack("!I", len(body))[1:] + body
    return b"\x16\x03\x01" + struct.pack("!H", len(hs)) + hs


HOSTS = [("api.skycast.example", bytes([203, 0, 113, 113])), ("t.adtrack.example", bytes([198, 51, 100, 7])),
         ("cdn.petitmarche.example", bytes([203, 0, 113, 111])), ("collect.metrics.example", bytes([192, 0, 2, 62]))]
TLS_HOSTS = [("api.chatterly.example", bytes([198, 51, 100, 137])), ("app.adjust.com", bytes([192, 0, 2, 185]))]
IDFA = "9F556435-F8AA-4567-BC63-F47D66BC8C22"
for name, ip in HOSTS + TLS_HOSTS:
    record(udp_frame(bytes([192, 168, 4, 1]), CLIENT, 53, 40000, dns_answer(name, ip)))

port = 40000
requests = 0
while written < limit:
    port = port + 1 if port < 65000 else 40001
    if rng.random() < 0.05:
        name, ip = rng.choice(TLS_HOSTS)
        cseq = rng.randrange(1 << 32)
        record(tcp_frame(CLIENT, ip, port, 443, cseq, 0, 0x02))
        record(tcp_frame(ip, CLIENT, 443, port, 7, cseq + 1, 0x12))
        record(tcp_frame(CLIENT, ip, port, 443, cseq + 1, 8, 0x18, client_hello(name)))
        continue
    name, ip = rng.choice(HOSTS)
    cseq, sseq = rng.randrange(1 << 32), rng.randrange(1 << 32)
    record(tcp_frame(CLIENT, ip, port, 80, cseq, 0, 0x02))
    record(tcp_frame(ip, CLIENT, 80, port, sseq, cseq + 1, 0x12))
    cseq += 1
    sseq += 1
    record(tcp_frame(CLIENT, ip, port, 80, cseq, sseq, 0x10))
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        lat, lon = 47.08 + rng.random() / 100, 2.39 + rng.random() / 100
        if kind < 0.5:
            req = (f"GET /v1/events?idfa={IDFA}&lat={lat:.5f}&lon={lon:.5f}&n={requests} HTTP/1.1\r\n"
                   f"Host: {name}\r\nUser-Agent: App/1.0\r\nAccept: */*\r\n\r\n").encode()
        elif kind < 0.8:
            body = gzip.compress(f'{{"idfa":"{IDFA}","email":"lucas.bernard@example.net","n":{requests}}}'.encode(), mtime=0)
            req = (f"POST /batch HTTP/1.1\r\nHost: {name}\r\nContent-Type: application/json\r\n"
                   f"Content-Encoding: gzip\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        else:
            chunk = f"lat={lat:.5f}&lon={lon:.5f}&id={requests}".encode()
            req = (f"POST /loc HTTP/1.1\r\nHost: {name}\r\nTransfer-Encoding: chunked\r\n"
                   "Content-Type: application/x-www-form-urlencoded\r\n\r\n").encode() + \
                  f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n0\r\n\r\n"
        requests += 1
        cut = rng.randint(10, len(req) - 1)
        segs = [(cseq, req[:cut]), (cseq + cut, req[cut:])]
        for s, p in segs:
            record(tcp_frame(CLIENT, ip, port, 80, s, sseq, 0x18, p))
        if rng.random() < 0.05:
            record(tcp_frame(CLIENT, ip, port, 80, segs[0][0], sseq, 0x18, segs[0][1]))  # retransmission
        cseq += len(req)
        size = rng.randint(2000, 40000)
        resp = f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\n\r\n".encode()
        resp += bytes(rng.getrandbits(8) for _ in range(64)) * (size // 64) + bytes(size % 64)
        pieces = [(sseq + i, resp[i:i + 1448]) for i in range(0, len(resp), 1448)]
        if len(pieces) > 3 and rng.random() < 0.1:
            pieces[1], pieces[2] = pieces[2], pieces[1]  # reordered
        for s, p in pieces:
            record(tcp_frame(ip, CLIENT, 80, port, s, cseq, 0x18, p))
        sseq += len(resp)
        record(tcp_frame(CLIENT, ip, port, 80, cseq, sseq, 0x10))
    record(tcp_frame(CLIENT, ip, port, 80, cseq, sseq, 0x11))
    record(tcp_frame(ip, CLIENT, 80, port, sseq, cseq + 1, 0x11))
    record(tcp_frame(CLIENT, ip, port, 80, cseq + 1, sseq + 1, 0x10))
f.close()
print(f"{out_path}: {written / 1e6:.0f} MB, {requests} HTTP requests", file=sys.stderr)
