#!/usr/bin/env python3
"""Generate the test suite's own fixtures (deterministic, Python 3 standard library only).

Two FICTIONAL test phones (an iPhone and an Android phone), their owners, contacts and apps, and the traffic
the apps send: first-party hosts are under reserved names (*.example, *.test), tracker hosts are real SDK
hostnames (Rules/trackers.json) so attribution can be tested; every IP address is from the documentation
ranges (RFC 5737) and every identifier, name, e-mail and phone number was invented here (phone numbers are
from ranges reserved for fiction: ARCEP 06 39 98 xx xx in France, Ofcom 07700 900xxx and 020 7946 0xxx in
the UK).

Writes, under Tests/Fixtures/:
  ios/, android/      per device:
    device.json         the device profile (`--device`)
    traffic.har         HAR 1.2: every request (http:// and https://) with its response, as a proxy logs it
    traffic.pcap        the same session on the wire (Ethernet, microseconds): DNS for every host, the
                        http:// requests as real TCP sessions (handshakes, requests split over segments,
                        keep-alive, chunked and gzip bodies, a retransmission, a late duplicate, server
                        segments out of order, FIN), and a TLS ClientHello (SNI, ALPN) per https connection
    traffic-sll.pcap    the same packets, Linux cooked capture v1 (link type 113), big-endian, nanoseconds
    traffic-sll2.pcap   the same packets, Linux cooked capture v2 (link type 276)
    traffic.pcapng      the same packets, pcapng (nanosecond if_tsresol, a name resolution block and a
                        custom block a reader must skip)
    labels.json         what each request truly leaks (format of the labelled corpora: requests[] with
                        key, categories, leaks, hard_negatives, format)
  captures.json       per capture: packets, HTTP requests, DNS names and SNIs it holds
  malformed/          hostile capture files and `expected.json`: the error (kind, byte offset) or the
                      requests each must give

Usage: python3 make_fixtures.py [--check]   (--check: exit 1 when a committed file differs from the output)
"""
import base64
import json
import os
import random
import struct
import sys
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, unquote, urlsplit, parse_qsl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from capture_builder import (PacketLog, TCPConnection, client_hello, dns_exchange, dns_name, form,  # noqa: E402
                             gzip_bytes, http_head, iso, ipv4, md5, pcap_file, sha256, timestamp_parts)


def seeded_uuid(rng, upper=True):
    text = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return text.upper() if upper else text


def seeded_hex(rng, digits):
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


def luhn_complete(digits):
    """`digits` plus the Luhn check digit (IMEIs, ICCIDs, order ids that look like them)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


# ---------------------------------------------------------------- the fictional devices and owners
def make_devices():
    rng = random.Random(0x5EED_1051)
    ios = {
        "key": "ios", "platform": "ios", "region": "FR",
        "name": "fixture iPhone 14 (iOS 17.6), fictional test phone of the Mouchard test suite",
        "ad_type": "idfa", "ad_id": seeded_uuid(rng),
        "vendor_type": "idfv", "vendor_id": seeded_uuid(rng),
        "udid": seeded_hex(rng, 40), "serial": "F2LXK9QH7N4M", "mac": "f4:6b:8c:21:5e:93",
        "owner": "Maëlle Dufresne", "first": "Maëlle", "last": "Dufresne",
        "email": "maelle.dufresne@example.org", "phone": "+33 6 39 98 27 41", "phone_e164": "+33639982741",
        "phone_national": "06 39 98 27 41",
        "lat": 47.218371, "lon": -1.553621,  # Nantes
        "contacts": [
            {"name": "Jérôme Vasseur", "phones": ["+33 6 39 98 55 12"], "emails": ["jerome.vasseur@example.net"]},
            {"name": "Anaïs Royer", "phones": ["06 39 98 73 08"], "emails": []},
            {"name": "Karim Benali", "phones": ["+33 6 39 98 14 67"], "emails": ["karim.benali@example.com"]},
        ],
        "ua": "Brindille/3.2.1 (fr.brindille.notes; build:321; iOS 17.6.0) Alamofire/5.9.1",
        "ua_sdk": "Brindille/321 CFNetwork/1498.700.2 Darwin/23.6.0",
        "device_ip": "192.0.2.41", "device_eth": bytes.fromhex("5a3e91c0d217"),
        "start": datetime(2026, 11, 3, 8, 12, 4, 318000, tzinfo=timezone.utc),
    }
    android = {
        "key": "android", "platform": "android", "region": "GB",
        "name": "fixture Pixel 8 (Android 14), fictional test phone of the Mouchard test suite",
        "ad_type": "advertising_id", "ad_id": seeded_uuid(rng, upper=False),
        "vendor_type": "android_id", "vendor_id": seeded_hex(rng, 16),
        "imei": luhn_complete("35" + "".join(rng.choice("0123456789") for _ in range(12))),
        "imsi": "234150" + "".join(rng.choice("0123456789") for _ in range(9)),
        "iccid": luhn_complete("894410" + "".join(rng.choice("0123456789") for _ in range(12))),
        "serial": "3A091FDJH00B7Q", "mac": "9c:5a:44:e2:07:b8",
        "owner": "Oliver Pemberton", "first": "Oliver", "last": "Pemberton",
        "email": "oliver.pemberton@example.com", "phone": "+44 7700 900461", "phone_e164": "+447700900461",
        "phone_national": "07700 900461",
        "lat": 53.479251, "lon": -2.247926,  # Manchester
        "contacts": [
            {"name": "Priya Shah", "phones": ["+44 7700 900128"], "emails": ["priya.shah@example.net"]},
            {"name": "Tom Whitaker", "phones": ["07700 900935"], "emails": []},
            {"name": "Grace O'Neill", "phones": ["+44 20 7946 0372"], "emails": ["grace.oneill@example.org"]},
        ],
        "ua": "okhttp/4.12.0 Brindille/3.2.1 (fr.brindille.notes; Android 14; Pixel 8)",
        "ua_sdk": "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UQ1A.240205.004)",
        "device_ip": "192.0.2.57", "device_eth": bytes.fromhex("be11d4a0937c"),
        "start": datetime(2026, 11, 4, 17, 40, 51, 902000, tzinfo=timezone.utc),
    }
    return [ios, android]


def profile_document(d):
    identifiers = {d["ad_type"]: d["ad_id"], d["vendor_type"]: d["vendor_id"]}
    if d["platform"] == "ios":
        identifiers["udid"] = d["udid"]
    else:
        identifiers.update({"imei": d["imei"], "imsi": d["imsi"], "iccid": d["iccid"]})
    identifiers["serial"] = d["serial"]
    identifiers["mac"] = [d["mac"]]
    return {
        "name": d["name"], "platform": d["platform"], "region": d["region"], "identifiers": identifiers,
        "owner": {"name": d["owner"], "email": [d["email"]], "phone": [d["phone"]]},
        "location": {"latitude": d["lat"], "longitude": d["lon"]},
        "contacts": d["contacts"],
    }


# ---------------------------------------------------------------- encodings
def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def b64(text):
    return base64.b64encode(text.encode()).decode()


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def pb_bytes(field, data):
    data = data.encode() if isinstance(data, str) else data
    return varint(field << 3 | 2) + varint(len(data)) + data


def pb_double(field, value):
    return varint(field << 3 | 1) + struct.pack("<d", value)


def pb_varint(field, value):
    return varint(field << 3) + varint(value)


def chunked(data, sizes):
    """The chunked transfer coding of `data` in chunks of the given sizes (the rest in one chunk)."""
    out, i = b"", 0
    for size in sizes + [len(data)]:
        piece = data[i:i + size]
        if piece:
            out += b"%x\r\n" % len(piece) + piece + b"\r\n"
        i += len(piece)
    return out + b"0\r\n\r\n"


def leak(category, kind, where, encoding="plain", form_=None, inner=None):
    entry = {"category": category, "type": kind, "where": where, "encoding": encoding}
    if form_:
        entry["form"] = form_
    if inner:
        entry["inner"] = inner
    return entry


def negative(kind, where, note=None):
    entry = {"kind": kind, "where": where}
    if note:
        entry["note"] = note
    return entry


# ---------------------------------------------------------------- the requests of one device, in time order
APP = "app:brindille-notes"
APP_API = "api.brindille.example"
APP_ADS = "ads.brindille.example"
APP_CDN = "cdn.brindille.test"
RADAR = "app:gourmet-radar"
RADAR_API = "api.gourmetradar.example"

SERVER_IPS = {
    APP_API: "198.51.100.20", APP_ADS: "198.51.100.21", APP_CDN: "198.51.100.22", RADAR_API: "198.51.100.23",
    "launches.appsflyersdk.com": "203.0.113.31", "api2.amplitude.com": "203.0.113.32",
    "api.mixpanel.com": "203.0.113.33", "graph.facebook.com": "203.0.113.34",
    "googleads.g.doubleclick.net": "203.0.113.35", "api.onesignal.com": "203.0.113.36",
    "app-measurement.com": "203.0.113.37", "api.segment.io": "203.0.113.38",
    "app.adjust.com": "203.0.113.39", "h.online-metrix.net": "203.0.113.40",
    "o450001.ingest.sentry.io": "203.0.113.41",
}
# TLS connections the proxy could not open (certificate pinning): the capture has only DNS and SNI.
TLS_ONLY = ["h.online-metrix.net"]


def requests_for(d, rng):
    """Every request of the session: dicts with method, url, body, mime, leaks, negatives (for labels.json)."""
    ios = d["platform"] == "ios"
    ad, vid, email, e164 = d["ad_id"], d["vendor_id"], d["email"], d["phone_e164"]
    lat, lon = d["lat"], d["lon"]
    ad_key = "idfa" if ios else "gaid"
    vendor_key = "idfv" if ios else "android_id"
    os_name = "ios" if ios else "android"
    request_id = lambda: seeded_uuid(rng, upper=False)  # noqa: E731 (look-alikes: request and session ids)
    c0, c1, c2 = d["contacts"]
    seq = [1_793_700_000_000 + (0 if ios else 90_000_000)]

    def ts():
        seq[0] += rng.randrange(700, 4000)
        return str(seq[0])

    out = []

    def add(method, url, app=APP, body=b"", mime=None, leaks=(), negatives=(), headers=(), gzip=False,
            chunks=None, response=("application/json", b'{"ok":true}'), ua=None):
        fmt = []
        if body:
            fmt.append(mime.split(";")[0])
        if gzip:
            fmt.append("gzip")
        if chunks is not None:
            fmt.append("chunked")
        out.append(dict(method=method, url=url, app=app, body=body, mime=mime, leaks=list(leaks),
                        negatives=list(negatives), headers=list(headers), gzip=gzip, chunks=chunks,
                        response=response, ua=ua or d["ua"], format=fmt))

    add("GET", f"https://{APP_API}/v3/config?platform={os_name}&build=321&t={ts()}",
        headers=[("X-Request-ID", request_id())], negatives=[negative("uuid", "header:X-Request-ID", "request id")],
        response=("application/json", b'{"sync":true,"ads":true,"editor":"markdown"}'))
    session = request_id()
    add("POST", f"http://{APP_API}/v3/session?t={ts()}",
        body=compact({"device_id": vid, "session": session, "os": os_name, "locale": "fr_FR" if ios else "en_GB"}).encode(),
        mime="application/json", leaks=[leak("device-id", d["vendor_type"], "body:$.device_id")],
        negatives=[negative("uuid", "body:$.session")])
    add("GET", f"http://{APP_API}/v3/nearby?lat={lat:.4f}&lon={lon:.4f}&radius=500&t={ts()}",
        leaks=[leak("location", "coordinates", "query:lat,lon", form_="dp4 fields")],
        response=("application/json", b'{"places":[]}'))
    add("GET", f"http://{RADAR_API}/v1/search?q=cr%C3%AAperie&lat=48.8566&lon=2.3522&page=1&t={ts()}", app=RADAR,
        negatives=[negative("far-coordinates", "query:lat,lon", "a searched city, hundreds of km away")],
        response=("application/json", b'{"results":12}'))
    add("GET", f"http://{RADAR_API}/v1/weather?lat={lat:.1f}&lon={lon:.1f}&units=metric", app=RADAR,
        negatives=[negative("coarse-coordinates", "query:lat,lon", "1 decimal: an 11 km cell")],
        response=("application/json", b'{"temp":11.5}'))
    install = f"{seq[0]}-{rng.getrandbits(60)}"
    add("POST", f"https://launches.appsflyersdk.com/api/v6.13/{os_name}event?app_id=id6401000001&t={ts()}",
        body=compact({"advertiserId": ad, "advertiserIdEnabled": "true", "uid": install, "counter": "3",
                      "af_timestamp": str(seq[0]), "app_version_name": "3.2.1"}).encode(),
        mime="application/json", app="sdk:appsflyer", ua=d["ua_sdk"],
        leaks=[leak("device-id", d["ad_type"], "body:$.advertiserId")],
        negatives=[negative("install-id", "body:$.uid")])
    events = compact({"batch": [
        {"event": "note_created", "ts": int(seq[0] / 1000), "props": {"words": 118, "pinned": False}},
        {"event": "signup", "ts": int(seq[0] / 1000) + 9, "props": {"user": {"email": email, "phone": e164}}},
    ]}).encode()
    add("POST", f"http://{APP_API}/v3/events?t={ts()}", body=gzip_bytes(events), mime="application/json", gzip=True,
        leaks=[leak("email", "email", "body:$.batch[1].props.user.email", "gzip"),
               leak("phone-number", "phone", "body:$.batch[1].props.user.phone", "gzip", form_="e164")])
    blob = b64(compact({ad_key: ad, "geo": {"la": round(lat, 3), "lo": round(lon, 3)}, "slot": "interstitial"}))
    add("GET", f"http://{APP_ADS}/v1/pixel?e=view&u={quote(blob, safe='')}&t={ts()}",
        leaks=[leak("device-id", d["ad_type"], "query:u", "base64+url", inner=f"$.{ad_key}"),
               leak("location", "coordinates", "query:u", "base64+url", form_="dp3 fields", inner="$.geo.la,$.geo.lo")],
        response=("image/gif", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00"
                               b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
    add("GET", f"http://{APP_ADS}/v1/cap?dh={md5(d['mac'])}&n=3&t={ts()}",
        leaks=[leak("device-id", "mac", "query:dh", "md5")], response=("application/json", b'{"cap":3}'))
    add("POST", f"https://graph.facebook.com/v20.0/6401000001/activities?t={ts()}", app="sdk:facebook", ua=d["ua_sdk"],
        body=form([("event", "CUSTOM_APP_EVENTS"), ("advertiser_id", ad), ("advertiser_tracking_enabled", "1"),
                   ("ud[em]", sha256(email.strip().lower())), ("ud[ph]", sha256(e164.lstrip("+"))),
                   ("custom_events", compact([{"_eventName": "fb_mobile_activate_app", "_logTime": int(seq[0] / 1000)}]))]).encode(),
        mime="application/x-www-form-urlencoded",
        leaks=[leak("device-id", d["ad_type"], "form:advertiser_id"),
               leak("email", "email", "form:ud[em]", "sha256", form_="lowercase-trim"),
               leak("phone-number", "phone", "form:ud[ph]", "sha256", form_="e164 digits")])
    contacts = compact({"invite": True, "contacts": [
        {"n": c0["name"], "p": c0["phones"][0], "e": c0["emails"][0]},
        {"n": c1["name"], "p": c1["phones"][0]},
    ]}).encode()
    add("POST", f"http://{APP_API}/v3/share/contacts?t={ts()}", body=contacts, mime="application/json; charset=utf-8",
        leaks=[leak("contacts", "contact-name", "body:$.contacts[*].n"),
               leak("contacts", "contact-phone", "body:$.contacts[*].p", form_="as typed"),
               leak("contacts", "contact-email", "body:$.contacts[0].e")],
        response=("application/json", b'{"invited":2}'))
    hashes = [sha256(p) for p in (c2["phones"][0].replace(" ", ""), e164)]
    add("POST", f"https://{APP_API}/v3/contacts/match?t={ts()}", body=compact({"hashes": hashes}).encode(),
        mime="application/json",
        leaks=[leak("contacts", "contact-phone", "body:$.hashes[*]", "sha256", form_="e164"),
               leak("phone-number", "phone", "body:$.hashes[*]", "sha256", form_="e164")],
        response=("application/json", b'{"matches":[]}'))
    add("POST", f"https://api2.amplitude.com/2/httpapi?t={ts()}", app="sdk:amplitude", ua=d["ua_sdk"],
        body=compact({"api_key": seeded_hex(rng, 32), "events": [{
            "device_id": vid, "event_type": "session_start", "platform": os_name,
            "insert_id": request_id(), "user_properties": {"display_name": d["owner"], "theme": "sepia"}}]}).encode(),
        mime="application/json",
        leaks=[leak("device-id", d["vendor_type"], "body:$.events[0].device_id"),
               leak("name", "name", "body:$.events[0].user_properties.display_name")],
        negatives=[negative("uuid", "body:$.events[0].insert_id")])
    if ios:
        add("GET", f"https://{APP_API}/v3/account?t={ts()}",
            headers=[("Authorization", "Bearer br_" + seeded_hex(rng, 24)), ("X-Device-UDID", d["udid"])],
            leaks=[leak("device-id", "udid", "header:X-Device-UDID")], response=("application/json", b'{"plan":"free"}'))
    else:
        add("POST", f"http://{APP_API}/v3/register?t={ts()}", mime="application/x-www-form-urlencoded",
            body=form([("imei", d["imei"]), ("imsi", d["imsi"]), ("sim", d["iccid"]), ("model", "Pixel 8")]).encode(),
            leaks=[leak("device-id", "imei", "form:imei"), leak("device-id", "imsi", "form:imsi"),
                   leak("device-id", "iccid", "form:sim")])
    mixpanel = b64(compact({"event": "App Open", "properties": {"distinct_id": vid, "$email": email,
                                                                "token": seeded_hex(rng, 32)}}))
    add("POST", f"https://api.mixpanel.com/track?ip=1&t={ts()}", app="sdk:mixpanel", ua=d["ua_sdk"],
        body=form([("data", mixpanel)]).encode(), mime="application/x-www-form-urlencoded",
        leaks=[leak("device-id", d["vendor_type"], "form:data", "base64", inner="$.properties.distinct_id"),
               leak("email", "email", "form:data", "base64", inner="$.properties.$email")])
    hotline = "01 99 00 42 17" if ios else "020 7946 0811"
    add("POST", f"http://{APP_API}/v3/feedback?t={ts()}", mime="application/x-www-form-urlencoded",
        body=form([("from", email), ("to", "support@brindille.example"),
                   ("message", f"Sync fails since 3.2, I called {hotline} already")]).encode(),
        leaks=[leak("email", "email", "form:from")],
        negatives=[negative("company-email", "form:to"), negative("business-phone", "form:message")])
    order = luhn_complete("".join(rng.choice("0123456789") for _ in range(14)))
    add("GET", f"http://{RADAR_API}/v1/orders/{order}?lang=fr", app=RADAR,
        negatives=[negative("luhn-order-id", "url", "15 digits that pass Luhn: an order, not an IMEI")],
        response=("application/json", b'{"status":"delivered"}'))
    proto = (pb_bytes(1, seeded_hex(rng, 32)) + pb_varint(2, 17) + pb_bytes(3, ad)
             + pb_bytes(4, pb_double(1, lat) + pb_double(2, lon)) + pb_bytes(5, "session_start"))
    add("POST", f"https://app-measurement.com/a?t={ts()}", app="sdk:firebase", ua=d["ua_sdk"], body=proto,
        mime="application/x-protobuf",
        leaks=[leak("device-id", d["ad_type"], "body:pb.3", "protobuf"),
               leak("location", "coordinates", "body:pb.4.1,pb.4.2", "protobuf", form_="double fields")],
        negatives=[negative("install-id", "body:pb.1", "app instance id")])
    profile = compact({"user": {"first_name": d["first"], "last_name": d["last"], "mail": email.upper(),
                                "newsletter": True}}).encode()
    add("PUT", f"http://{APP_API}/v3/profile?t={ts()}", body=profile, mime="application/json", chunks=[20, 31],
        leaks=[leak("name", "name", "body:$.user.first_name,$.user.last_name", form_="first and last"),
               leak("email", "email", "body:$.user.mail", form_="uppercase")])
    add("GET", f"http://{APP_ADS}/v1/match?em={quote(email, safe='')}&src=newsletter&t={ts()}",
        leaks=[leak("email", "email", "query:em", "url")], response=("application/json", b'{"matched":false}'))
    add("POST", f"https://api.onesignal.com/players?t={ts()}", app="sdk:onesignal", ua=d["ua_sdk"], mime="application/json",
        body=compact({"app_id": seeded_uuid(rng, upper=False), "identifier": seeded_hex(rng, 64), "ad_id": ad,
                      "device_type": 0 if ios else 1, "language": "fr" if ios else "en"}).encode(),
        leaks=[leak("device-id", d["ad_type"], "body:$.ad_id")],
        negatives=[negative("push-token", "body:$.identifier"), negative("uuid", "body:$.app_id")])
    add("GET", f"https://googleads.g.doubleclick.net/mads/gma?ad_type=banner&format=320x50&rdid={ad}&is_lat=0"
               f"&u_so=p&t={ts()}", app="sdk:admob", ua=d["ua_sdk"],
        leaks=[leak("device-id", d["ad_type"], "query:rdid")], response=("text/html", b"<html><body>ad</body></html>"))
    add("GET", f"https://{APP_API}/v3/config?platform={os_name}&{ad_key}=00000000-0000-0000-0000-000000000000&t={ts()}",
        negatives=[negative("idfa-zeros", f"query:{ad_key}", "limit ad tracking: the all-zeros identifier")],
        response=("application/json", b'{"sync":true}'))
    inner = compact({"loc": {"lat": round(lat, 6), "lng": round(lon, 6)}, vendor_key: vid, "battery": 0.62})
    add("POST", f"http://{APP_API}/v3/telemetry?t={ts()}", mime="application/json",
        body=compact({"kind": "diag", "payload": inner, "request": request_id()}).encode(),
        leaks=[leak("location", "coordinates", "body:$.payload", "json", form_="dp6 fields", inner="$.loc.lat,$.loc.lng"),
               leak("device-id", d["vendor_type"], "body:$.payload", "json", inner=f"$.{vendor_key}")],
        negatives=[negative("uuid", "body:$.request")])
    boundary = "----BrindilleBoundary" + seeded_hex(rng, 12)
    multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n{email}\r\n"
                 f"--{boundary}\r\nContent-Disposition: form-data; name=\"note\"; filename=\"note.md\"\r\n"
                 f"Content-Type: text/markdown\r\n\r\n# Courses\n- pain\n- beurre\r\n--{boundary}--\r\n").encode()
    add("POST", f"http://{APP_API}/v3/notes/export?t={ts()}", body=multipart,
        mime=f"multipart/form-data; boundary={boundary}", leaks=[leak("email", "email", "multipart:email")])
    add("GET", f"http://{RADAR_API}/v1/ping?lat=v2.14&build=214&t={ts()}", app=RADAR,
        negatives=[negative("version-string", "query:lat", "a parameter named lat that holds a version")],
        response=("application/json", b'{"pong":true}'))
    add("POST", f"https://{APP_API}/v3/sync?t={ts()}", mime="application/json",
        body=compact({"etag": seeded_hex(rng, 40), "blob": base64.b64encode(bytes(rng.getrandbits(8) for _ in range(24))).decode(),
                      "notes": 14}).encode(),
        negatives=[negative("random-40hex", "body:$.etag"), negative("junk-base64", "body:$.blob")])
    add("GET", f"http://{APP_API}/v3/home?t={ts()}",
        headers=[("Cookie", f"uid={vid}; theme=sepia; ll={lat:.5f},{lon:.5f}")],
        leaks=[leak("device-id", d["vendor_type"], "cookie:uid"),
               leak("location", "coordinates", "cookie:ll", form_="dp5 ll=lat,lng")],
        response=("application/json", b'{"cards":[]}'))
    add("POST", f"https://api.segment.io/v1/batch?t={ts()}", app="sdk:segment", ua=d["ua_sdk"], mime="application/json",
        body=compact({"batch": [{"type": "identify", "messageId": request_id(),
                                 "traits": {"email": email, "phone": d["phone_national"], "name": d["owner"]},
                                 "context": {"device": {"advertisingId": ad, "type": os_name}}}]}).encode(),
        leaks=[leak("email", "email", "body:$.batch[0].traits.email"),
               leak("phone-number", "phone", "body:$.batch[0].traits.phone", form_="national-spaces"),
               leak("name", "name", "body:$.batch[0].traits.name"),
               leak("device-id", d["ad_type"], "body:$.batch[0].context.device.advertisingId")],
        negatives=[negative("uuid", "body:$.batch[0].messageId")])
    add("GET", f"http://{APP_ADS}/v1/sync?h={email.encode().hex()}&v=2&t={ts()}",
        leaks=[leak("email", "email", "query:h", "hex")], response=("application/json", b'{"ok":1}'))
    add("POST", f"http://{APP_ADS}/v1/bid?t={ts()}", mime="application/x-www-form-urlencoded",
        body=form([("slot", "banner_bottom"), ("ifa", ad.lower()), ("wifi_mac", d["mac"].upper()),
                   ("ll", f"{lat:.6f},{lon:.6f}"), ("req", request_id())]).encode(),
        leaks=[leak("device-id", d["ad_type"], "form:ifa", form_="lowercase"),
               leak("device-id", "mac", "form:wifi_mac", form_="uppercase"),
               leak("location", "coordinates", "form:ll", form_="dp6 ll=lat,lng")],
        negatives=[negative("uuid", "form:req")], response=("application/json", b'{"fill":false}'))
    client_info = b64(compact({"adid": ad, "os": os_name}))
    add("GET", f"https://app.adjust.com/session?app_token=br4nd1ll3x&t={ts()}", app="sdk:adjust", ua=d["ua_sdk"],
        headers=[("X-Client-Info", client_info)],
        leaks=[leak("device-id", d["ad_type"], "header:X-Client-Info", "base64", inner="$.adid")])
    add("GET", f"http://{APP_CDN}/themes/sepia.css?v=321&t={ts()}",
        response=("text/css", b"body{background:#f4ecd8;color:#5b4636}"))
    add("POST", f"http://{APP_API}/v3/devices?t={ts()}", mime="application/json",
        body=compact({"serial": d["serial"], "model": "iPhone15,2" if ios else "Pixel 8", "push": seeded_hex(rng, 64)}).encode(),
        leaks=[leak("device-id", "serial", "body:$.serial")],
        negatives=[negative("push-token", "body:$.push")])
    add("POST", f"https://o450001.ingest.sentry.io/api/450002/envelope/?t={ts()}", app="sdk:sentry", ua=d["ua_sdk"],
        mime="application/x-sentry-envelope",
        body=(compact({"event_id": seeded_hex(rng, 32), "sent_at": "2026-11-03T08:13:00.000Z"}) + "\n"
              + compact({"type": "event", "length": 0}) + "\n"
              + compact({"level": "error", "message": "sync: conflict on note 14"})).encode(),
        negatives=[negative("random-hex", "body:event_id")])
    return out


# ---------------------------------------------------------------- HTTP bytes
def request_head(d, r):
    parts = urlsplit(r["url"])
    target = parts.path + ("?" + parts.query if parts.query else "")
    headers = [("Host", parts.hostname), ("User-Agent", r["ua"]), ("Accept", "*/*"),
               ("Accept-Language", "fr-FR,fr;q=0.9" if d["platform"] == "ios" else "en-GB,en;q=0.9")]
    headers += r["headers"]
    if r["body"]:
        headers.append(("Content-Type", r["mime"]))
        if r["gzip"]:
            headers.append(("Content-Encoding", "gzip"))
        if r["chunks"] is not None:
            headers.append(("Transfer-Encoding", "chunked"))
        else:
            headers.append(("Content-Length", str(len(r["body"]))))
    headers.append(("Connection", "keep-alive"))
    return target, headers


def response_headers(r, when):
    mime, body = r["response"]
    return [("Date", when.strftime("%a, %d %b %Y %H:%M:%S GMT")), ("Content-Type", mime),
            ("Content-Length", str(len(body))), ("Connection", "keep-alive")]


def request_times(d, requests):
    when, out = d["start"], []
    for i, _ in enumerate(requests):
        out.append(when)
        when += timedelta(milliseconds=420 + (i * 7919) % 900)
    return out


def make_har(d, requests, times):
    entries = []
    for r, when in zip(requests, times):
        target, headers = request_head(d, r)
        parts = urlsplit(r["url"])
        query = [{"name": unquote(k), "value": unquote(v)}
                 for k, _, v in (pair.partition("=") for pair in parts.query.split("&") if pair)]
        request = {"method": r["method"], "url": r["url"], "httpVersion": "HTTP/1.1", "cookies": [],
                   "headers": [{"name": k, "value": v} for k, v in headers], "queryString": query,
                   "headersSize": len(http_head(f"{r['method']} {target} HTTP/1.1", headers)),
                   "bodySize": len(r["body"])}
        if r["body"]:
            if r["gzip"] or r["mime"] == "application/x-protobuf":
                request["postData"] = {"mimeType": r["mime"], "text": base64.b64encode(r["body"]).decode(),
                                       "encoding": "base64"}
            else:
                request["postData"] = {"mimeType": r["mime"], "text": r["body"].decode()}
                if r["mime"].startswith("application/x-www-form-urlencoded"):
                    request["postData"]["params"] = [{"name": k, "value": v} for k, v in
                                                     parse_qsl(r["body"].decode(), keep_blank_values=True)]
        mime, rbody = r["response"]
        rheaders = response_headers(r, when)
        if mime.startswith("image/"):
            content = {"size": len(rbody), "mimeType": mime, "text": base64.b64encode(rbody).decode(), "encoding": "base64"}
        else:
            content = {"size": len(rbody), "mimeType": mime, "text": rbody.decode()}
        response = {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": k, "value": v} for k, v in rheaders], "content": content, "redirectURL": "",
                    "headersSize": len(http_head("HTTP/1.1 200 OK", rheaders)), "bodySize": len(rbody)}
        wait = 40 + (len(entries) * 37) % 160
        entries.append({"startedDateTime": iso(when), "time": wait + 3.25, "request": request, "response": response,
                        "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 1.25,
                                                 "wait": float(wait), "receive": 2.0},
                        "serverIPAddress": SERVER_IPS[parts.hostname], "connection": str(SERVER_PORTS[parts.hostname])})
    return {"log": {"version": "1.2", "creator": {"name": "mouchard-fixture-generator", "version": "1"},
                    "comment": "Fictional apps on a fictional test phone (Tests/Fixtures/make_fixtures.py). "
                               + ", ".join(TLS_ONLY) + ": TLS not decrypted, only in the captures (DNS + SNI).",
                    "pages": [], "entries": entries}}


SERVER_PORTS = {host: 51000 + i for i, host in enumerate(SERVER_IPS)}  # HAR `connection` ids


# ---------------------------------------------------------------- packets
GATEWAY_IP, GATEWAY_ETH = "192.0.2.1", bytes.fromhex("02a0c9d4e5f6")  # also the DNS resolver


def session_log(d):
    """The packet log of a device's session (its own TTLs and IP id counters)."""
    return PacketLog(d["device_ip"], ttl_out=64, ttl_in=55, ident_out=0x2b40, ident_in=0x6e00)


def connection(log, server, port, client_port, when):
    return TCPConnection(log, server, port, client_port, when, f"{server}:{port}:{client_port}")


def make_packets(d, requests, times):
    """The session's packets and what a reader must find in them."""
    packets = session_log(d)
    resolved, connections = [], {}
    ports, txids = [49700], [0x3c51 if d["platform"] == "ios" else 0x7a02]
    facts = {"http_requests": 0, "snis": [], "dns_names": []}

    def resolve(when, host):
        if host in resolved:
            return when
        resolved.append(host)
        txids[0] += 13
        return dns_exchange(packets, when, GATEWAY_IP, host, SERVER_IPS[host], txids[0], 53100 + len(resolved))

    def connect(when, host, port):
        if (host, port) not in connections:
            ports[0] += 1
            connections[(host, port)] = connection(packets, SERVER_IPS[host], port, ports[0], when)
            when += timedelta(milliseconds=23)
        return connections[(host, port)], when

    http_index = 0
    for r, at in zip(requests, times):
        when = at - timedelta(milliseconds=45)
        host = urlsplit(r["url"]).hostname
        when = resolve(when, host)
        if r["url"].startswith("https://"):
            fresh = (host, 443) not in connections
            conn, when = connect(when, host, 443)
            if fresh:
                conn.client_send(when, client_hello(host), segment=1460)
                facts["snis"].append(host)
            continue
        conn, when = connect(when, host, 80)
        target, headers = request_head(d, r)
        head = http_head(f"{r['method']} {target} HTTP/1.1", headers)
        body = r["body"] if r["chunks"] is None else chunked(r["body"], r["chunks"])
        # Headers and body in separate writes (as NSURLSession and OkHttp do), each split in segments.
        when = conn.client_send(when, head, segment=180 + (http_index * 61) % 300,
                                retransmit=0 if http_index == 3 else None,
                                late_duplicate=0 if http_index == 6 else None)
        if body:
            when = conn.client_send(when + timedelta(microseconds=200), body, segment=400)
        rhead = http_head("HTTP/1.1 200 OK", response_headers(r, at))
        conn.server_send(when + timedelta(milliseconds=38), rhead + r["response"][1], segment=120,
                         swap_first_two=http_index % 4 == 1)
        facts["http_requests"] += 1
        http_index += 1
    end = times[-1] + timedelta(seconds=1)
    for i, host in enumerate(TLS_ONLY):
        when = resolve(end + timedelta(milliseconds=100 * i), host)
        conn, when = connect(when, host, 443)
        conn.client_send(when, client_hello(host), segment=1460)
        facts["snis"].append(host)
    for i, conn in enumerate(connections.values()):
        conn.close(end + timedelta(seconds=2, milliseconds=25 * i))
    facts["dns_names"] = resolved
    records = packets.sorted()
    facts["packets"] = len(records)
    return records, facts


# ---------------------------------------------------------------- capture files
def ethernet(d, out, packet):
    src, dst = (d["device_eth"], GATEWAY_ETH) if out else (GATEWAY_ETH, d["device_eth"])
    return dst + src + b"\x08\x00" + packet


def sll(d, out, packet):
    # packet type: 4 = sent by us, 0 = to us; ARPHRD_ETHER; address length 6 padded to 8; protocol.
    address = d["device_eth"] if out else GATEWAY_ETH
    return struct.pack("!HHH", 4 if out else 0, 1, 6) + address + b"\x00\x00" + struct.pack("!H", 0x0800) + packet


def sll2(d, out, packet):
    address = d["device_eth"] if out else GATEWAY_ETH
    return (struct.pack("!HHIHBB", 0x0800, 0, 3, 1, 4 if out else 0, 6) + address + b"\x00\x00") + packet


def framed_pcap(records, frame, linktype, big_endian=False, nanoseconds=False):
    """A pcap file of (time, from_device, IPv4 packet) records, each framed by `frame(from_device, packet)`."""
    return pcap_file([(when, frame(out, packet)) for when, out, packet in records], linktype, snaplen=262144,
                     big_endian=big_endian, nanoseconds=nanoseconds)


def pcapng_block(kind, body):
    body += b"\x00" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack("<II", kind, length) + body + struct.pack("<I", length)


def pcapng_option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\x00" * (-len(value) % 4)


def pcapng_file(d, records, hostnames):
    shb = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
                       + pcapng_option(4, b"mouchard-fixture-generator") + pcapng_option(0, b""))
    idb = pcapng_block(1, struct.pack("<HHI", 1, 0, 262144) + pcapng_option(2, b"wlan0")
                       + pcapng_option(9, b"\x09") + pcapng_option(0, b""))
    # Name resolution block (type 4) and a custom block (0x00000BAD): readers skip what they do not use.
    names = b"".join(struct.pack("<HH", 1, 4 + len(h) + 1) + ipv4(SERVER_IPS[h]) + h.encode() + b"\x00"
                     + b"\x00" * (-(4 + len(h) + 1) % 4) for h in hostnames) + struct.pack("<HH", 0, 0)
    nrb = pcapng_block(4, names)
    custom = pcapng_block(0x00000BAD, struct.pack("<I", 32473) + b"fixture")
    blocks = [shb, idb, nrb, custom]
    for when, outbound, packet in records:
        data = ethernet(d, outbound, packet)
        total = int(round(when.timestamp() * 1_000_000_000))
        blocks.append(pcapng_block(6, struct.pack("<IIIII", 0, total >> 32, total & 0xFFFFFFFF, len(data), len(data))
                                   + data + b"\x00" * (-len(data) % 4)))
    return b"".join(blocks)


# ---------------------------------------------------------------- labels
def labels(d, requests):
    out = []
    for i, r in enumerate(requests, 1):
        url = r["url"]
        out.append({"id": f"{d['key']}-{i:04d}", "device": d["key"], "method": r["method"], "url": url,
                    "key": f"{r['method']} {url}", "transport": url.split(":")[0], "app": r["app"],
                    "categories": sorted({entry["category"] for entry in r["leaks"]}), "leaks": r["leaks"],
                    "hard_negatives": r["negatives"], "format": r["format"]})
    return {"corpus": "fixtures", "device": d["key"], "device_profile": "device.json",
            "location_rule": "A coordinate pair is a location leak when both numbers carry at least 2 decimals and "
                             "the point lies within 3 km of the profile location; 1-decimal pairs and points farther "
                             "than 3 km are not leaks.",
            "key": "method + ' ' + normalized absolute URL", "requests": out}


# ---------------------------------------------------------------- malformed captures
def malformed(d):
    """Hostile capture files: name -> (bytes, expectation). An expectation holds `error` (kind and byte offset
    of the one error the reader reports, or null), `requests` (the paths of the HTTP requests it must still
    give, in order) and, where packets are broken on purpose, `bad_packets` and `malformed_dns` (how many
    the reader must count as undecodable IP/TCP/UDP packets and as malformed DNS messages)."""
    out = {}
    exchange = []  # three small HTTP exchanges, each on its own connection, and where each record starts
    small = session_log(d)
    starts_at = []
    t0 = datetime(2026, 11, 5, 10, 0, 0, tzinfo=timezone.utc)
    for i in range(3):
        when = t0 + timedelta(seconds=i)
        starts_at.append(len(small.records))
        c = connection(small, SERVER_IPS[APP_API], 80, 50100 + i, when)
        c.client_send(when + timedelta(milliseconds=30),
                      http_head(f"GET /m{i}?k={i} HTTP/1.1", [("Host", APP_API), ("User-Agent", "fixture/1")]))
        c.server_send(when + timedelta(milliseconds=60),
                      http_head("HTTP/1.1 200 OK", [("Content-Length", "2")]) + b"ok")
        c.close(when + timedelta(milliseconds=90))
    exchange = small.sorted()
    frame = lambda out_, p: ethernet(d, out_, p)  # noqa: E731
    whole = framed_pcap(exchange, frame, 1)
    offsets, o = [], 24
    for when, outbound, packet in exchange:
        offsets.append(o)
        o += 16 + 14 + len(packet)
    third = offsets[starts_at[2]]
    paths = ["/m0", "/m1", "/m2"]
    out["exchanges.pcap"] = (whole, {"error": None, "requests": paths})
    out["cut-mid-record.pcap"] = (whole[:third + 10], {"error": {"kind": "truncated", "offset": third},
                                                        "requests": paths[:2]})
    out["cut-mid-packet-data.pcap"] = (whole[:third + 30], {"error": {"kind": "truncated", "offset": third},
                                                             "requests": paths[:2]})
    out["cut-file-header.pcap"] = (whole[:13], {"error": {"kind": "truncated", "offset": 0}, "requests": []})
    out["empty.pcap"] = (b"", {"error": {"kind": "badMagic", "offset": 0}, "requests": []})
    out["bad-magic.pcap"] = (b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
                             {"error": {"kind": "badMagic", "offset": 0}, "requests": []})
    garbage = bytearray(whole)
    garbage[third:third + 16] = b"\xee" * 16
    out["garbage-record-header.pcap"] = (bytes(garbage), {"error": {"kind": "corrupt", "offset": third},
                                                          "requests": paths[:2]})
    # Packets whose headers lie: IPv4 header length 3 words, a total length past the frame, a TCP data offset
    # past the segment, a UDP length past the datagram. Each is skipped; the exchanges around them survive.
    liars = []
    base_when = exchange[0][0] - timedelta(milliseconds=5)
    good_ip = exchange[0][2]
    bad_ihl = bytes([0x43]) + good_ip[1:]
    bad_total = good_ip[:2] + struct.pack("!H", len(good_ip) + 400) + good_ip[4:]
    bad_offset = good_ip[:20 + 12] + bytes([0xF0]) + good_ip[20 + 13:]
    udp_liar = (struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + 4, 1, 0, 64, 17, 0, ipv4(d["device_ip"]), ipv4(GATEWAY_IP))
                + struct.pack("!HHHH", 53001, 53, 900, 0) + b"\x12\x34\x01\x00")
    for k, p in enumerate([bad_ihl, bad_total, bad_offset, udp_liar, b"\x45\x00", b""]):
        liars.append((base_when + timedelta(microseconds=k), True, p))
    # A total length or UDP length past the captured bytes reads as a packet cut by the snapshot length (the
    # copy of the SYN is kept, the UDP datagram goes on to DNS, which finds it malformed): 4 are undecodable.
    out["lying-headers.pcap"] = (framed_pcap(liars + exchange, frame, 1),
                                 {"error": None, "requests": paths, "bad_packets": 4, "malformed_dns": 1})
    # DNS answers that point into themselves (compression loops) or past the message; a ClientHello whose
    # lengths run past the record; a stream of bytes that is not HTTP on port 80.
    loop = struct.pack("!HHHHHH", 0x1111, 0x8180, 1, 1, 0, 0) + b"\xc0\x0c" + struct.pack("!HH", 1, 1) \
        + b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + ipv4("198.51.100.99")
    past_end = struct.pack("!HHHHHH", 0x2222, 0x8180, 1, 5, 0, 0) + dns_name("a.example") + struct.pack("!HH", 1, 1) \
        + b"\xc0\xff"
    noise = session_log(d)
    noise.udp(t0, GATEWAY_IP, 53, d["device_ip"], 53200, loop)
    noise.udp(t0 + timedelta(milliseconds=1), GATEWAY_IP, 53, d["device_ip"], 53201, past_end)
    hello = client_hello("cut.example")
    lying_hello = hello[:5] + b"\x01\x00\xff\xff" + hello[9:60]
    c = connection(noise, SERVER_IPS[APP_API], 443, 50200, t0 + timedelta(milliseconds=5))
    c.client_send(t0 + timedelta(milliseconds=40), lying_hello)
    c = connection(noise, SERVER_IPS[APP_API], 80, 50201, t0 + timedelta(milliseconds=60))
    c.client_send(t0 + timedelta(milliseconds=90), bytes(range(256)) * 3)
    out["hostile-payloads.pcap"] = (framed_pcap(noise.sorted() + exchange, frame, 1),
                                    {"error": None, "requests": paths, "malformed_dns": 2})
    # Packets cut by a small snapshot length: the captured bytes end inside the TCP payload.
    snap = []
    for when, outbound, packet in exchange:
        data = ethernet(d, outbound, packet)
        snap.append((when, data[:96], len(data)))
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 96, 1)
    body = b"".join(struct.pack("<IIII", *timestamp_parts(w, 1_000_000), len(x), n) + x for w, x, n in snap)
    out["snaplen-96.pcap"] = (header + body, {"error": None, "requests": None})  # cut heads: no crash, no error
    # pcapng: a block length that is not a multiple of 4, a trailer that disagrees, a packet on an interface
    # never described, and an unknown version.
    ng = pcapng_file(d, exchange, [APP_API])
    blocks, o = [], 0
    while o < len(ng):
        length = struct.unpack_from("<I", ng, o + 4)[0]
        blocks.append(o)
        o += length
    fourth_packet = blocks[4 + starts_at[2]]
    broken = bytearray(ng)
    broken[fourth_packet + 4] = (broken[fourth_packet + 4] & 0xFC) | 0x03
    out["pcapng-bad-block-length.pcapng"] = (bytes(broken), {"error": {"kind": "corrupt", "offset": fourth_packet},
                                                             "requests": paths[:2]})
    trailer = bytearray(ng)
    length = struct.unpack_from("<I", ng, fourth_packet + 4)[0]
    struct.pack_into("<I", trailer, fourth_packet + length - 4, length + 4)
    out["pcapng-bad-trailer.pcapng"] = (bytes(trailer), {"error": {"kind": "corrupt", "offset": fourth_packet + length - 4},
                                                         "requests": paths[:2]})
    stray = bytearray(ng)
    struct.pack_into("<I", stray, fourth_packet + 8, 7)
    out["pcapng-undescribed-interface.pcapng"] = (bytes(stray), {"error": {"kind": "corrupt", "offset": fourth_packet},
                                                                 "requests": paths[:2]})
    version = bytearray(ng)
    struct.pack_into("<H", version, 12, 2)
    out["pcapng-version-2.pcapng"] = (bytes(version), {"error": {"kind": "unsupported", "offset": 12}, "requests": []})
    out["pcapng-cut.pcapng"] = (ng[:fourth_packet + 20], {"error": {"kind": "truncated", "offset": fourth_packet},
                                                          "requests": paths[:2]})
    return out


# ---------------------------------------------------------------- main
def outputs():
    """Every file this generator writes: relative path -> bytes."""
    files, captures = {}, {}
    devices = make_devices()
    for d in devices:
        rng = random.Random(0xF1C5 + (0 if d["platform"] == "ios" else 1))
        requests = requests_for(d, rng)
        times = request_times(d, requests)
        k = d["key"]
        files[f"{k}/device.json"] = (json.dumps(profile_document(d), indent=2, ensure_ascii=False) + "\n").encode()
        files[f"{k}/traffic.har"] = (json.dumps(make_har(d, requests, times), indent=1, ensure_ascii=False) + "\n").encode()
        files[f"{k}/labels.json"] = (json.dumps(labels(d, requests), indent=1, ensure_ascii=False) + "\n").encode()
        records, facts = make_packets(d, requests, times)
        files[f"{k}/traffic.pcap"] = framed_pcap(records, lambda o, p: ethernet(d, o, p), 1)
        files[f"{k}/traffic-sll.pcap"] = framed_pcap(records, lambda o, p: sll(d, o, p), 113, big_endian=True,
                                                   nanoseconds=True)
        files[f"{k}/traffic-sll2.pcap"] = framed_pcap(records, lambda o, p: sll2(d, o, p), 276)
        files[f"{k}/traffic.pcapng"] = pcapng_file(d, records, facts["dns_names"])
        for name in ["traffic.pcap", "traffic-sll.pcap", "traffic-sll2.pcap", "traffic.pcapng"]:
            captures[f"{k}/{name}"] = facts
    keys = [r["key"] for d in devices for r in json.loads(files[f"{d['key']}/labels.json"])["requests"]]
    assert len(keys) == len(set(keys)), "request keys must be unique across the fixtures (labels are merged)"
    files["captures.json"] = (json.dumps(captures, indent=1, sort_keys=True) + "\n").encode()
    expectations = {}
    for name, (data, expected) in sorted(malformed(devices[0]).items()):
        files[f"malformed/{name}"] = data
        expectations[name] = expected
    files["malformed/expected.json"] = (json.dumps(expectations, indent=1, sort_keys=True) + "\n").encode()
    return files


def main():
    files = outputs()
    if "--check" in sys.argv[1:]:
        def committed(name):
            path = os.path.join(HERE, name)
            if not os.path.exists(path):
                return None
            with open(path, "rb") as f:
                return f.read()
        stale = [name for name, data in sorted(files.items()) if committed(name) != data]
        for name in stale:
            print(f"Tests/Fixtures/{name} differs from what make_fixtures.py writes (run `make fixtures`)")
        sys.exit(1 if stale else 0)
    for name, data in files.items():
        path = os.path.join(HERE, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    total = sum(len(v) for v in files.values())
    print(f"wrote {len(files)} files, {total} bytes, under Tests/Fixtures/")


if __name__ == "__main__":
    main()
