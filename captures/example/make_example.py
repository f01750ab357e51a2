#!/usr/bin/env python3
"""Generate Mouchard's bundled example capture (deterministic, Python 3 standard library only).

The app ("Lumo Torch", a flashlight for iOS), its back end (*.lumotorch.example), the test device and its
owner are all FICTIONAL. Tracker hosts are real SDK hostnames (see Rules/trackers.json) but every IP address
is from the documentation ranges (RFC 5737) and every identifier was invented for this file.

Writes, next to this script:
  device.json   the device profile (format: docs/device-profile.md)
  traffic.har   HAR 1.2: every decrypted request (http:// and https://) with its response
  traffic.pcap  the same session on the wire: DNS for every host, the cleartext http:// requests as real TCP
                sessions (handshakes, segments, ACKs, FIN), and a TLS ClientHello (SNI, ALPN) for each https
                connection, including one destination the proxy could not decrypt (TLS only).

Usage: python3 make_example.py [--table]   (--table prints the leak table of captures/README.md)
"""
import base64
import hashlib
import json
import os
import struct
import sys
import uuid
import zlib
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from capture_builder import (PacketLog, TCPConnection, client_hello, dns_exchange, form, gzip_bytes,  # noqa: E402
                             iso, md5, pcap_file, sha256)

# ---------------------------------------------------------------- the fictional device and its owner
IDFA = "8C1F6A2E-5B3D-4E7F-A9C1-2D4E6F8A0B13"
IDFV = "5E9A7C31-2B4D-4F60-8A1E-C3D5F7092B46"
UDID = "00008110-001C2D3E4F5A601E"
MAC = "3c:22:fb:9a:41:7e"
OWNER = "Alex Rivière"
EMAIL = "alex.riviere@example.com"
PHONE = "+33 6 39 98 42 17"            # ARCEP range reserved for fiction (06 39 98 xx xx)
PHONE_E164 = "+33639984217"
LAT, LON = 45.7640, 4.8357              # Lyon
CONTACTS = [
    {"name": "Nadia Fournier", "phones": ["+33 6 39 98 10 55"], "emails": ["nadia.fournier@example.net"]},
    {"name": "Paul Girard", "phones": ["04 65 71 23 80"], "emails": []},  # 04 65 71 xx xx: fiction range
]
DEVICE = {
    "name": "example iPhone 13 (iOS 17.5.1), fictional test device of the Lumo Torch demo",
    "platform": "ios",
    "region": "FR",
    "identifiers": {"udid": UDID, "idfa": IDFA, "idfv": IDFV, "mac": [MAC]},
    "owner": {"name": OWNER, "email": [EMAIL], "phone": [PHONE]},
    "location": {"latitude": LAT, "longitude": LON},
    "contacts": CONTACTS,
}

# ---------------------------------------------------------------- network plan
DEVICE_IP, DEVICE_ETH = "192.168.1.23", bytes.fromhex("7a1f3c9d02b5")   # randomized private Wi-Fi MAC
GATEWAY_IP, GATEWAY_ETH = "192.168.1.1", bytes.fromhex("a4b1c2d3e4f5")   # also the DNS resolver
SERVER_IPS = {
    "api.lumotorch.example": "198.51.100.10",
    "ads.lumotorch.example": "198.51.100.11",
    "cdn.lumotorch.example": "198.51.100.12",
    "config.unityads.unity3d.com": "203.0.113.21",
    "launches.appsflyersdk.com": "203.0.113.22",
    "googleads.g.doubleclick.net": "203.0.113.23",
    "graph.facebook.com": "203.0.113.24",
    "api2.amplitude.com": "203.0.113.25",
    "o4505000000000001.ingest.sentry.io": "203.0.113.26",
    "h.online-metrix.net": "203.0.113.27",
}
START = datetime(2026, 11, 2, 9, 14, 5, 120000, tzinfo=timezone.utc)
UA_APP = "LumoTorch/2.4.0 (com.lumo.torch; build:240; iOS 17.5.1) Alamofire/5.9.1"
UA_SDK = "LumoTorch/240 CFNetwork/1496.0.7 Darwin/23.5.0"
UA_WEB = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Mobile/15E148")


def fixed_uuid(label):
    """A stable random-looking UUID (request ids, install ids: look-alikes that are not the device's)."""
    return str(uuid.UUID(bytes=hashlib.sha256(label.encode()).digest()[:16], version=4))


def png_1x1():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\xff\xd2\x3f\xff", 9)) \
        + chunk(b"IEND", b"")


# ---------------------------------------------------------------- the requests, in time order
# Each: offset in ms, method, url, headers (after Host), body bytes, body mime, response, leaks for the README.
JSON_OK = ("application/json", b'{"ok":true}')
pixel_blob = base64.b64encode(json.dumps(
    {"idfa": IDFA, "geo": {"la": 45.764, "lo": 4.836}, "slot": "interstitial"}, separators=(",", ":")).encode()).decode()
events_json = json.dumps({"batch": [
    {"event": "torch_on", "ts": 1793610851, "props": {"mode": "strobe", "brightness": 0.8}},
    {"event": "signup", "ts": 1793610859, "props": {"user": {"email": EMAIL, "phone": PHONE_E164}}},
]}, separators=(",", ":")).encode()
contacts_json = json.dumps({"invite": True, "contacts": [
    {"n": "Nadia Fournier", "p": "+33 6 39 98 10 55", "e": "nadia.fournier@example.net"},
    {"n": "Paul Girard", "p": "04 65 71 23 80"},
]}, ensure_ascii=False, separators=(",", ":")).encode()
amplitude_json = json.dumps({"api_key": "0d5c8f2a61b94e7aa3c1f0e9d8b7a6c5", "events": [{
    "device_id": IDFV, "event_type": "session_start", "platform": "iOS", "os_version": "17.5.1",
    "insert_id": fixed_uuid("amplitude-insert"), "user_properties": {"display_name": OWNER, "theme": "aurora"},
}]}, ensure_ascii=False, separators=(",", ":")).encode()
appsflyer_json = json.dumps({
    "advertiserId": IDFA, "advertiserIdEnabled": "true", "uid": "1730538845120-7712093346158841632",
    "af_timestamp": "1793610845321", "deviceType": "iPhone14,5", "app_version_name": "2.4.0", "counter": "1",
}, separators=(",", ":")).encode()
sentry_envelope = (
    json.dumps({"event_id": "9b2f6c1d4e8a4f0b8c7d6e5f4a3b2c1d", "sent_at": "2026-11-02T09:14:31.002Z"}) + "\n"
    + json.dumps({"type": "event", "length": 0}) + "\n"
    + json.dumps({"level": "error", "platform": "cocoa", "message": "torch: camera busy",
                  "contexts": {"device": {"model": "iPhone14,5"}, "os": {"name": "iOS", "version": "17.5.1"}}})
).encode()
fb_form = form([
    ("event", "CUSTOM_APP_EVENTS"), ("advertiser_id", IDFA), ("advertiser_tracking_enabled", "1"),
    ("application_tracking_enabled", "1"), ("ud[em]", sha256(EMAIL.strip().lower())),
    ("ud[ph]", sha256(PHONE_E164.lstrip("+"))),
    ("custom_events", json.dumps([{"_eventName": "fb_mobile_activate_app", "_logTime": 1793610853}])),
]).encode()
bid_form = form([
    ("slot", "banner_bottom"), ("ifa", IDFA.lower()), ("mac", MAC.upper()), ("ll", "45.76412,4.83561"),
    ("req", fixed_uuid("bid-request")),
]).encode()

REQUESTS = [
    dict(at=0, method="GET", url="http://api.lumotorch.example/v2/config?app=com.lumo.torch&v=2.4.0", ua=UA_APP,
         response=("application/json", b'{"modes":["steady","strobe","sos"],"ads":true,"tips":true}'), leaks=[]),
    dict(at=640, method="GET",
         url="https://config.unityads.unity3d.com/webview/4.10.0/release/config.json?gameId=5500001"
             "&advertisingTrackingId=00000000-0000-0000-0000-000000000000&limitAdTracking=true&platform=ios",
         ua=UA_SDK, response=("application/json", b'{"url":"https://webview.unityads.unity3d.com/x.html"}'), leaks=[]),
    dict(at=1210, method="POST",
         url="https://launches.appsflyersdk.com/api/v6.12/iosevent?app_id=id6400000001&buildnumber=6.12.2",
         ua=UA_SDK, body=appsflyer_json, mime="application/json", response=JSON_OK,
         leaks=[("IDFA", "body:$.advertiserId", "plain")]),
    dict(at=1890, method="GET",
         url=f"http://api.lumotorch.example/v2/launch?device={IDFV}&lat=45.7640&lon=4.8357&tz=Europe%2FParis",
         ua=UA_APP, response=("application/json", b'{"welcome":"Bonjour","skin":"aurora"}'),
         leaks=[("IDFV", "query:device", "plain"), ("location (4 decimals)", "query:lat,lon", "plain")]),
    dict(at=2470, method="POST", url="http://ads.lumotorch.example/v1/bid", ua=UA_APP, body=bid_form,
         mime="application/x-www-form-urlencoded", response=("application/json", b'{"fill":true,"creative":"c-118"}'),
         leaks=[("IDFA (lower case)", "form:ifa", "plain"), ("Wi-Fi MAC (upper case)", "form:mac", "url"),
                ("location `ll=lat,lng` (5 decimals)", "form:ll", "url")]),
    dict(at=3020, method="GET",
         url=f"https://googleads.g.doubleclick.net/mads/gma?ad_type=banner&format=320x50&idtype=idfa&rdid={IDFA}"
             "&is_lat=0&app_name=2.4.0.ios.com.lumo.torch&u_so=p",
         ua=UA_WEB, response=("text/html", b"<html><body>ad</body></html>"),
         leaks=[("IDFA", "query:rdid", "plain")]),
    dict(at=3760, method="POST", url="http://api.lumotorch.example/v2/events", ua=UA_APP,
         body=gzip_bytes(events_json), mime="application/json", gzip=True, response=JSON_OK,
         leaks=[("e-mail", "body:$.batch[1].props.user.email", "gzip"),
                ("phone number (E.164)", "body:$.batch[1].props.user.phone", "gzip")]),
    dict(at=4410, method="GET", url=f"http://ads.lumotorch.example/v1/pixel?e=view&u={quote(pixel_blob, safe='')}",
         ua=UA_APP, response=("image/gif", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04"
                                           b"\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"),
         leaks=[("IDFA", "query:u → $.idfa", "base64+url"),
                ("location (3 decimals)", "query:u → $.geo.la,$.geo.lo", "base64+url")]),
    dict(at=4980, method="GET", url=f"http://ads.lumotorch.example/v1/cap?dh={md5(MAC)}&n=3", ua=UA_APP,
         response=("application/json", b'{"cap":3,"left":2}'), leaks=[("Wi-Fi MAC", "query:dh", "md5")]),
    dict(at=5530, method="POST", url="https://graph.facebook.com/v19.0/6400000001/activities", ua=UA_SDK,
         body=fb_form, mime="application/x-www-form-urlencoded", response=JSON_OK,
         leaks=[("IDFA", "form:advertiser_id", "plain"), ("e-mail (trimmed, lower case)", "form:ud[em]", "sha256"),
                ("phone number (E.164 digits)", "form:ud[ph]", "sha256")]),
    dict(at=6240, method="POST", url="http://api.lumotorch.example/v2/share/contacts", ua=UA_APP, body=contacts_json,
         mime="application/json; charset=utf-8", response=("application/json", b'{"invited":2}'),
         leaks=[("contacts: 2 names, 2 phones, 1 e-mail", "body:$.contacts[*]", "plain")]),
    dict(at=6900, method="GET", url="http://api.lumotorch.example/v2/tips?lang=fr&city=Paris&lat=48.8566&lon=2.3522",
         ua=UA_APP, response=("application/json", b'{"tip":"Double-tap for SOS"}'), leaks=[]),
    dict(at=7350, method="GET", url="http://cdn.lumotorch.example/skins/aurora.png", ua=UA_APP,
         response=("image/png", png_1x1()), leaks=[]),
    dict(at=8020, method="POST", url="https://api2.amplitude.com/2/httpapi", ua=UA_SDK, body=amplitude_json,
         mime="application/json", response=("application/json", b'{"code":200,"events_ingested":1}'),
         leaks=[("IDFV", "body:$.events[0].device_id", "plain"),
                ("owner's name", "body:$.events[0].user_properties.display_name", "plain")]),
    dict(at=8700, method="GET", url="https://api.lumotorch.example/v2/account", ua=UA_APP,
         extra_headers=[("Authorization", "Bearer lt_9fK2mQ7xVb3LpZ8rT1wY"), ("X-Device-UDID", UDID)],
         response=("application/json", b'{"plan":"free","ads":true}'), leaks=[("UDID", "header:X-Device-UDID", "plain")]),
    dict(at=9310, method="POST", url="https://o4505000000000001.ingest.sentry.io/api/4505000000000002/envelope/",
         ua=UA_SDK, body=sentry_envelope, mime="application/x-sentry-envelope",
         response=("application/json", b'{"id":"9b2f6c1d4e8a4f0b8c7d6e5f4a3b2c1d"}'), leaks=[]),
]
# A TLS connection the proxy could not open (the SDK pins its certificate): only DNS and SNI are seen.
TLS_ONLY = [dict(at=9900, host="h.online-metrix.net")]


def request_head(r):
    parts = urlsplit(r["url"])
    target = parts.path + ("?" + parts.query if parts.query else "")
    headers = [("Host", parts.hostname), ("User-Agent", r["ua"]), ("Accept", "*/*"),
               ("Accept-Language", "fr-FR,fr;q=0.9")]
    headers += r.get("extra_headers", [])
    body = r.get("body", b"")
    if body:
        headers.append(("Content-Type", r["mime"]))
        if r.get("gzip"):
            headers.append(("Content-Encoding", "gzip"))
        headers.append(("Content-Length", str(len(body))))
    headers.append(("Connection", "keep-alive"))
    return target, headers


def response_head(r, when):
    mime, body = r["response"]
    return [("Date", when.strftime("%a, %d %b %Y %H:%M:%S GMT")), ("Content-Type", mime),
            ("Content-Length", str(len(body))), ("Connection", "keep-alive")]


def wire_bytes(method, target, headers, body):
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


def response_bytes(headers, body):
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


# ---------------------------------------------------------------- HAR
def make_har():
    entries = []
    for r in REQUESTS:
        when = START + timedelta(milliseconds=r["at"])
        target, headers = request_head(r)
        parts = urlsplit(r["url"])
        query = []
        if parts.query:
            from urllib.parse import unquote
            for pair in parts.query.split("&"):
                name, _, value = pair.partition("=")
                query.append({"name": unquote(name), "value": unquote(value)})
        request = {"method": r["method"], "url": r["url"], "httpVersion": "HTTP/1.1", "cookies": [],
                   "headers": [{"name": k, "value": v} for k, v in headers], "queryString": query,
                   "headersSize": len(wire_bytes(r["method"], target, headers, b"")), "bodySize": len(r.get("body", b""))}
        body = r.get("body", b"")
        if body:
            if r.get("gzip"):
                request["postData"] = {"mimeType": r["mime"], "text": base64.b64encode(body).decode(), "encoding": "base64"}
            else:
                request["postData"] = {"mimeType": r["mime"], "text": body.decode()}
                if r["mime"].startswith("application/x-www-form-urlencoded"):
                    from urllib.parse import parse_qsl
                    request["postData"]["params"] = [{"name": k, "value": v}
                                                     for k, v in parse_qsl(body.decode(), keep_blank_values=True)]
        mime, rbody = r["response"]
        rheaders = response_head(r, when)
        if mime.startswith(("image/",)):
            content = {"size": len(rbody), "mimeType": mime, "text": base64.b64encode(rbody).decode(), "encoding": "base64"}
        else:
            content = {"size": len(rbody), "mimeType": mime, "text": rbody.decode()}
        response = {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": k, "value": v} for k, v in rheaders], "content": content, "redirectURL": "",
                    "headersSize": len(response_bytes(rheaders, b"")), "bodySize": len(rbody)}
        entries.append({"startedDateTime": iso(when), "time": 84.0,
                        "request": request, "response": response, "cache": {},
                        "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 1.0, "wait": 78.0,
                                    "receive": 5.0},
                        "serverIPAddress": SERVER_IPS[parts.hostname]})
    return {"log": {"version": "1.2", "creator": {"name": "mouchard-example-generator", "version": "1"},
                    "comment": "Fictional app Lumo Torch on a fictional test device (see captures/README.md). "
                               "h.online-metrix.net was contacted over TLS that could not be decrypted: "
                               "it appears only in traffic.pcap (DNS + ClientHello SNI).",
                    "pages": [], "entries": entries}}


# ---------------------------------------------------------------- packet building
def ethernet(from_device, packet):
    eth = (GATEWAY_ETH + DEVICE_ETH) if from_device else (DEVICE_ETH + GATEWAY_ETH)
    return eth + b"\x08\x00" + packet


def make_pcap():
    wire = PacketLog(DEVICE_IP)
    resolved, connections = set(), {}
    next_port, next_txid = [50310], [0x1a2b]

    def resolve(when, host):
        if host in resolved:
            return when
        resolved.add(host)
        next_txid[0] += 7
        return dns_exchange(wire, when, GATEWAY_IP, host, SERVER_IPS[host], next_txid[0], 53000 + len(resolved))

    def connect(when, host, port):
        key = (host, port)
        if key not in connections:
            next_port[0] += 1
            connections[key] = TCPConnection(wire, SERVER_IPS[host], port, next_port[0], when,
                                             f"{host}:{port}:{next_port[0]}")
            when += timedelta(milliseconds=20)
        return connections[key], when

    for r in REQUESTS:
        when = START + timedelta(milliseconds=r["at"]) - timedelta(milliseconds=40)
        parts = urlsplit(r["url"])
        host = parts.hostname
        when = resolve(when, host)
        if parts.scheme == "https":
            fresh = (host, 443) not in connections
            conn, when = connect(when, host, 443)
            if fresh:
                conn.client_send(when, client_hello(host), segment=1460)
            continue
        conn, when = connect(when, host, 80)
        target, headers = request_head(r)
        head = wire_bytes(r["method"], target, headers, b"")
        body = r.get("body", b"")
        # Headers and body in separate segments, as NSURLSession writes them.
        when = conn.client_send(when, head)
        if body:
            when = conn.client_send(when + timedelta(microseconds=200), body)
        resp_headers = response_head(r, START + timedelta(milliseconds=r["at"]))
        conn.server_send(when + timedelta(milliseconds=40), response_bytes(resp_headers, r["response"][1]))
    for t in TLS_ONLY:
        when = resolve(START + timedelta(milliseconds=t["at"]), t["host"])
        conn, when = connect(when, t["host"], 443)
        conn.client_send(when, client_hello(t["host"]), segment=1460)
    end = START + timedelta(seconds=12)
    for i, conn in enumerate(connections.values()):
        conn.close(end + timedelta(milliseconds=30 * i))
    return pcap_file([(when, ethernet(out, packet)) for when, out, packet in wire.sorted()], 1)


def receiver(host):
    """Who the host belongs to, from Rules/trackers.json (longest matching suffix), else the app itself."""
    with open(os.path.join(HERE, "..", "..", "Rules", "trackers.json"), encoding="utf-8") as f:
        trackers = json.load(f)["trackers"]
    labels = host.split(".")
    for i in range(len(labels) - 1):
        entry = trackers.get(".".join(labels[i:]))
        if entry:
            return f"{entry['company']} ({entry['category']})"
    return "Lumo Torch (first party)"


def leak_table():
    rows = ["| # | data | destination | receiver | where | encoding |", "|---:|---|---|---|---|---|"]
    for i, r in enumerate(REQUESTS, 1):
        parts = urlsplit(r["url"])
        dest = f"{parts.scheme}://{parts.hostname}"
        who = receiver(parts.hostname)
        if not r["leaks"]:
            rows.append(f"| {i} | — (clean: {r['method']} {parts.path}) | {dest} | {who} | | |")
        for data, where, encoding in r["leaks"]:
            rows.append(f"| {i} | {data} | {dest} | {who} | `{where}` | {encoding} |")
    for t in TLS_ONLY:
        rows.append(f"| — | unknown (TLS not decrypted: SNI and DNS only) | https://{t['host']} | {receiver(t['host'])} "
                    "| | tls-metadata |")
    return "\n".join(rows)


def main():
    if "--table" in sys.argv[1:]:
        print(leak_table())
        return
    with open(os.path.join(HERE, "device.json"), "w", encoding="utf-8") as f:
        json.dump(DEVICE, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "traffic.har"), "w", encoding="utf-8") as f:
        json.dump(make_har(), f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "traffic.pcap"), "wb") as f:
        f.write(make_pcap())
    http = sum(1 for r in REQUESTS if r["url"].startswith("http://"))
    print(f"requests: {len(REQUESTS)} in the HAR ({http} http:// in the pcap), "
          f"{len(REQUESTS) - http} https:// + {len(TLS_ONLY)} TLS-only, hosts: {len(SERVER_IPS)}")


if __name__ == "__main__":
    main()
