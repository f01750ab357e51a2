#!/usr/bin/env python3
"""Generate Mouchard's SDK corpus: labelled requests in the wire formats of real mobile SDKs and API styles.

Deterministic (fixed seeds), Python 3 standard library only. Every device, owner, contact, app and first-party
host is FICTIONAL; tracker hosts, endpoint paths, key names and encodings follow the SDKs' public documentation
and open-source code (see README.md for the list and the sources). Values were invented for this file.

Writes, next to this script:
  labels.json              labels of every device's requests (keys unique across the corpus)
  <device>/device.json     device profile (project format, see Sources/MouchardInspection/Profile)
  <device>/traffic.har     HAR 1.2, every request with its response
  <device>/labels.json     labels of this device's requests

Label format: one entry per request, `categories` = what it truly leaks about THIS device/owner; `leaks` say
where and how (encoding chain in the order the SDK applied it), `hard_negatives` list look-alikes that are not
leaks (placeholder ids, ETags, build hashes, order ids, far-away places, the app's own support contact,
someone else's details...). Location rule: a pair with at least 2 decimals within 3 km of the profile location.

Usage: python3 make_corpus.py [--check]   (--check regenerates in memory and fails if the files differ)
"""
import base64
import gzip
import hashlib
import io
import json
import os
import random
import struct
import sys
import unicodedata
import uuid
import zlib
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlencode, urlsplit, parse_qsl, unquote

HERE = os.path.dirname(os.path.abspath(__file__))
START = datetime(2026, 11, 3, 9, 12, 0, tzinfo=timezone.utc)
EPOCH_MS = int(START.timestamp() * 1000)


# ---------------------------------------------------------------- value helpers
def luhn_digit(digits):
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


class Values:
    """Deterministic random values for one device."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def uuid(self, upper=False):
        u = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        return u.upper() if upper else u

    def hex(self, n):
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def digits(self, n):
        return "".join(self.rng.choice("0123456789") for _ in range(n))

    def luhn(self, n):
        body = str(self.rng.randint(1, 9)) + self.digits(n - 2)
        return body + luhn_digit(body)

    def b64(self, n):
        return base64.b64encode(bytes(self.rng.getrandbits(8) for _ in range(n))).decode()

    def token(self, n, alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"):
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def ms(self, offset_s):
        return EPOCH_MS + offset_s * 1000 + self.rng.randint(0, 999)


def md5(s):
    return hashlib.md5(s.encode()).hexdigest()


def sha1(s):
    return hashlib.sha1(s.encode()).hexdigest()


def sha256(s):
    return hashlib.sha256(s.encode()).hexdigest()


def sha256_b64(s):
    return base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()


def fold(s):
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def jdump(obj, ascii_only=False):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=ascii_only)


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=6) as f:
        f.write(data)
    return buf.getvalue()


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# protobuf (wire format: varint keys, length-delimited strings and messages)
def pb_varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return pb_varint(field << 3 | 2) + pb_varint(len(data)) + data


def pb_int(field, n):
    return pb_varint(field << 3) + pb_varint(n)


def pb_double(field, x):
    return pb_varint(field << 3 | 1) + struct.pack("<d", x)


# Java DataOutputStream.writeUTF: 2-byte big-endian length, then (modified) UTF-8
def write_utf(s):
    data = s.encode()
    return struct.pack(">H", len(data)) + data


# ---------------------------------------------------------------- the fictional devices
def make_device(key, platform, region, seed, **kw):
    v = Values(seed)
    d = dict(key=key, platform=platform, region=region, v=v, **kw)
    if platform == "ios":
        d["ids"] = {"udid": v.hex(40), "idfa": v.uuid(upper=True), "idfv": v.uuid(upper=True),
                    "mac": [":".join(v.hex(2) for _ in range(6))]}
    else:
        d["ids"] = {"android_id": v.hex(16), "advertising_id": v.uuid(), "imei": "35" + v.luhn(13),
                    "serial": v.token(11, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"),
                    "mac": [":".join(v.hex(2) for _ in range(6))]}
        d["ids"]["imei"] = d["ids"]["imei"][:14] + luhn_digit(d["ids"]["imei"][:14])
    return d


DEVICES = [
    make_device(
        "ios-de", "ios", "DE", 1501, model="iPhone15,2", model_name="iPhone 14 Pro", os_version="17.6.1",
        tz="Europe/Berlin", tz_offset=60, locale="de_DE", lang="de", country="DE", carrier="Telekom.de",
        owner=dict(name="Lena Schröder", first="Lena", last="Schröder", email="lena.schroeder@example.de",
                   e164="+4915203456789", display="+49 1520 3456789", national="01520 3456789"),
        loc=(53.55034, 9.99207), far=(48.13743, 11.57549),   # Hamburg (Speicherstadt); far: Munich
        contacts=[dict(name="Timo Brandt", phones=["+49 1577 2345678"], emails=["timo.brandt@example.org"]),
                  dict(name="Ayşe Demir", phones=["040 98765432"], emails=[])],
        app=dict(bundle="de.hafenrad.app", name="Hafenrad", host="api.hafenrad.example", support="hilfe@hafenrad.example",
                 hotline="+49 40 55512300")),
    make_device(
        "android-br", "android", "BR", 2602, model="Pixel 8", brand="google", device_code="shiba", os_version="14",
        api_level=34, tz="America/Sao_Paulo", tz_offset=-180, locale="pt_BR", lang="pt", country="BR", carrier="Vivo",
        owner=dict(name="João Conceição", first="João", last="Conceição", email="joao.conceicao@example.com.br",
                   e164="+5551998765432", display="+55 51 99876-5432", national="(51) 99876-5432"),
        loc=(-30.03306, -51.23000), far=(-23.55052, -46.63331),  # Porto Alegre; far: São Paulo
        contacts=[dict(name="Mariana Ribeiro", phones=["+55 51 98111-2233"], emails=["mari.ribeiro@example.net"]),
                  dict(name="Otávio Lima", phones=["(51) 3222-4455"], emails=["otavio@example.org"])],
        app=dict(bundle="br.com.feiralivre.app", name="Feira Livre", host="api.feiralivre.example",
                 support="suporte@feiralivre.example", hotline="+55 11 40045566")),
    make_device(
        "ios-us", "ios", "US", 3703, model="iPhone16,1", model_name="iPhone 15 Pro", os_version="18.1",
        tz="America/Denver", tz_offset=-420, locale="en_US", lang="en", country="US", carrier="T-Mobile",
        owner=dict(name="Zoë O'Connor", first="Zoë", last="O'Connor", email="zoe.oconnor+apps@example.com",
                   e164="+13035550147", display="+1 303-555-0147", national="(303) 555-0147"),
        loc=(39.74204, -104.99153), far=(40.71278, -74.00597),   # Denver (Civic Center); far: New York
        contacts=[dict(name="Marcus Webb", phones=["+1 720-555-0188"], emails=["mwebb@example.net"]),
                  dict(name="Priya Raman", phones=["(303) 555-0111"], emails=["priya.raman@example.org"])],
        app=dict(bundle="com.trailmix.hikes", name="Trailmix", host="api.trailmix.example", support="support@trailmix.example",
                 hotline="+1 800-555-0199")),
    make_device(
        "android-jp", "android", "JP", 4804, model="SO-51D", brand="Sony", device_code="pdx234", os_version="13",
        api_level=33, tz="Asia/Tokyo", tz_offset=540, locale="ja_JP", lang="ja", country="JP", carrier="NTT DOCOMO",
        owner=dict(name="Hélène Satō", first="Hélène", last="Satō", email="helene.sato@example.jp",
                   e164="+819023456789", display="+81 90-2345-6789", national="090-2345-6789"),
        loc=(43.06207, 141.35440), far=(35.68123, 139.76712),   # Sapporo (Odori); far: Tokyo
        contacts=[dict(name="Kenji Mori", phones=["+81 80-1111-2222"], emails=["kenji.mori@example.net"]),
                  dict(name="Aiko Fujii", phones=["011-222-3333"], emails=["aiko@example.org"])],
        app=dict(bundle="jp.yukimichi.navi", name="Yukimichi", host="api.yukimichi.example",
                 support="support@yukimichi.example", hotline="+81 3-5555-0100")),
]

IDFA_ZEROS = "00000000-0000-0000-0000-000000000000"
ANDROID_ID_EMULATOR = "9774d56d682e549c"     # the Android 2.2 bug value shared by many devices: names no one
IOS_MAC_PLACEHOLDER = "02:00:00:00:00:00"    # what iOS returns for the Wi-Fi MAC since iOS 7


def profile_json(d):
    ids = {k: v for k, v in d["ids"].items()}
    o = d["owner"]
    return {
        "name": f"SDK corpus {d['key']} ({d['model']}, {d['platform']} {d['os_version']}), fictional test device",
        "platform": d["platform"], "region": d["region"], "identifiers": ids,
        "owner": {"name": o["name"], "email": [o["email"]], "phone": [o["display"]]},
        "location": {"latitude": d["loc"][0], "longitude": d["loc"][1]},
        "contacts": d["contacts"],
    }


def near(d, dlat, dlon, decimals):
    """A point `dlat`/`dlon` degrees (a few hundred metres) from the device, rounded."""
    return round(d["loc"][0] + dlat, decimals), round(d["loc"][1] + dlon, decimals)


def dms(x, pos, neg):
    hemi = pos if x >= 0 else neg
    x = abs(x)
    deg = int(x)
    minutes = int((x - deg) * 60)
    seconds = (x - deg - minutes / 60) * 3600
    return deg, minutes, seconds, hemi


CALLING_CODES = {"DE": "49", "BR": "55", "US": "1", "JP": "81"}


def e164_digits(d):
    return d["owner"]["e164"][1:]


def national_digits(d):
    return "".join(ch for ch in d["owner"]["national"] if ch.isdigit())


# ---------------------------------------------------------------- requests
class Req:
    def __init__(self, sdk, method, url, headers=(), body=b"", mime=None, content_encoding=None, ua=None,
                 response=None):
        self.sdk, self.method, self.url = sdk, method, url
        self.headers = list(headers)
        self.body = body.encode() if isinstance(body, str) else body
        self.mime, self.content_encoding, self.ua = mime, content_encoding, ua
        self.response = response or ("application/json", b'{"status":"ok"}')
        self.leaks, self.negatives = [], []

    def leak(self, category, type_, where, encoding="plain", form=None, inner=None, note=None):
        e = {"category": category, "type": type_, "where": where, "encoding": encoding}
        if form:
            e["form"] = form
        if inner:
            e["inner"] = inner
        if note:
            e["note"] = note
        self.leaks.append(e)
        return self

    def neg(self, kind, where, note=None):
        e = {"kind": kind, "where": where}
        if note:
            e["note"] = note
        self.negatives.append(e)
        return self


def q(params):
    """A query string as SDKs write it (percent-encoding of reserved bytes, space as %20)."""
    return "&".join(f"{quote(str(k), safe='')}={quote(str(v), safe='')}" for k, v in params)


def form_body(params):
    return urlencode([(k, str(v)) for k, v in params])


def ua_for(d, sdk):
    if d["platform"] == "ios":
        return f"{d['app']['name']}/3.4.1 (iPhone; iOS {d['os_version']}; Scale/3.00) {sdk}"
    return f"Dalvik/2.1.0 (Linux; U; Android {d['os_version']}; {d['model']} Build/UQ1A.240205.004) {sdk}"


def ad_id(d):
    return d["ids"]["idfa"] if d["platform"] == "ios" else d["ids"]["advertising_id"]


def ad_type(d):
    return "idfa" if d["platform"] == "ios" else "advertising_id"


def vendor_id(d):
    """The per-vendor id: IDFV on iOS, Android ID on Android."""
    return (d["ids"]["idfv"], "idfv") if d["platform"] == "ios" else (d["ids"]["android_id"], "android_id")


# ---- Firebase / Google Analytics for Firebase (app-measurement.com/a: gzip protobuf Batch{Bundle})
def firebase_analytics(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    instance = v.hex(32)
    fid = v.token(22)
    events = b"".join(pb_bytes(2, pb_bytes(1, pb_bytes(1, "_o") + pb_bytes(2, "auto")) + pb_bytes(2, name)
                                  + pb_int(3, v.ms(i))) for i, name in enumerate(["_s", "_e", "screen_view"]))
    bundle = (pb_int(1, 1) + events + pb_bytes(3, pb_int(1, v.ms(0)) + pb_bytes(2, "_fot") + pb_int(4, v.ms(0)))
              + pb_int(4, v.ms(30)) + pb_bytes(8, d["platform"]) + pb_bytes(9, d["os_version"])
              + pb_bytes(10, d["model"]) + pb_bytes(11, d["locale"].replace("_", "-").lower())
              + pb_int(12, d["tz_offset"] & 0xFFFFFFFFFFFFFFFF) + pb_bytes(14, d["app"]["bundle"]) + pb_bytes(16, "3.4.1")
              + pb_int(17, 110000) + pb_bytes(21, instance) + pb_int(23, 4)
              + pb_bytes(25, f"1:4489{v.digits(8)}:{d['platform']}:{v.hex(16)}")
              + pb_bytes(27, ad_id(d)) + pb_bytes(30, fid))
    body = gz(pb_bytes(1, bundle))
    r = Req("sdk:firebase-analytics", "POST", "https://app-measurement.com/a", body=body,
            mime="application/x-www-form-urlencoded", content_encoding="gzip",
            ua=ua_for(d, "FirebaseAnalytics/11.4.0" if ios else "okhttp/4.12.0"))
    r.leak("device-id", ad_type(d), "body", "protobuf+gzip", inner="pb:1.27 resettable_device_id")
    r.neg("install-id", "body", "app_instance_id (pb:1.21), random per install").neg("install-id", "body", "firebase_instance_id (pb:1.30)")
    # Firebase Installations: registers the FID, nothing about the device
    fis = Req("sdk:firebase-analytics", "POST",
              f"https://firebaseinstallations.googleapis.com/v1/projects/{d['app']['name'].lower()}-prod/installations",
              headers=[("x-goog-api-key", "AIzaSy" + v.token(33)), ("X-firebase-client", "fire-installations/11.4.0"),
                       ("X-Goog-Firebase-Installations-Auth", v.token(40))],
              body=jdump({"fid": fid, "authVersion": "FIS_v2", "appId": f"1:4489{v.digits(8)}:{d['platform']}:{v.hex(16)}",
                          "sdkVersion": "i:11.4.0" if ios else "a:18.0.0"}), mime="application/json", ua=ua_for(d, "FirebaseInstallations"))
    fis.neg("install-id", "body:$.fid").neg("api-key", "header:x-goog-api-key")
    return [r, fis]


# ---- Crashlytics over Firebase datatransport (firebaselogging JSON batch; report = base64 protobuf)
def crashlytics(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    lookup = f"https://{d['app']['host']}/v2/users/lookup?msisdn={quote(o['e164'], safe='')}"
    report = (pb_bytes(1, "18.6.4") + pb_bytes(2, f"1:4489{v.digits(8)}:{d['platform']}:{v.hex(16)}")
              + pb_int(3, 4 if ios else 2) + pb_bytes(4, v.hex(32))
              + pb_bytes(6, pb_int(1, v.ms(1) // 1000) + pb_bytes(2, "crash")
                         + pb_bytes(5, pb_bytes(1, "user_id") + pb_bytes(2, o["email"]))
                         + pb_bytes(6, pb_bytes(1, "last_url") + pb_bytes(2, lookup))))
    event = {"eventTimeMs": str(v.ms(2)), "eventUptimeMs": str(v.rng.randint(10 ** 6, 10 ** 7)),
             "sourceExtension": base64.b64encode(report).decode(), "timezoneOffsetSeconds": str(d["tz_offset"] * 60)}
    client = ({"clientType": "IOS_FIREBASE", "iosClientInfo": {"model": d["model"], "osMajorVersion": d["os_version"].split(".")[0],
                                                              "osFullVersion": d["os_version"], "applicationBundleId": d["app"]["bundle"]}}
              if ios else
              {"clientType": "ANDROID_FIREBASE", "androidClientInfo": {"sdkVersion": d["api_level"], "model": d["model"],
                                                                      "hardware": d["device_code"], "device": d["device_code"],
                                                                      "manufacturer": d["brand"], "country": d["country"],
                                                                      "locale": d["locale"], "mccMnc": "72406"}})
    body = {"logRequest": [{"requestTimeMs": str(v.ms(3)), "requestUptimeMs": str(v.rng.randint(10 ** 6, 10 ** 7)),
                            "clientInfo": client, "logSourceName": "CRASHLYTICS", "logEvent": [event]}]}
    r = Req("sdk:crashlytics", "POST", "https://firebaselogging.googleapis.com/v0cc/log/batch?format=json_proto3",
            headers=[("X-Goog-Api-Key", "AIzaSy" + v.token(33))], body=jdump(body), mime="application/json",
            ua=ua_for(d, "datatransport/3.3.0"))
    r.leak("email", "email", "body:$.logRequest[0].logEvent[0].sourceExtension", "protobuf+base64",
           inner="pb:6.5 custom key user_id")
    r.leak("phone-number", "phone", "body:$.logRequest[0].logEvent[0].sourceExtension", "url+protobuf+base64",
           form="e164", inner="pb:6.6 last_url ?msisdn=")
    r.neg("install-id", "body:...sourceExtension", "installation uuid pb:4")
    # the settings call: build hash and the GMP id, nothing personal
    s = Req("sdk:crashlytics", "GET",
            f"https://firebase-settings.crashlytics.com/spi/v2/platforms/{d['platform']}/gmp/1:4489{v.digits(8)}:{d['platform']}:{v.hex(16)}/settings?"
            + q([("build_version", "341"), ("display_version", "3.4.1"), ("instance", v.hex(40)), ("source", "4")]),
            headers=[("X-CRASHLYTICS-INSTALLATION-ID", v.hex(32)), ("X-CRASHLYTICS-DEVICE-MODEL", d["model"])],
            ua=ua_for(d, "Crashlytics Android SDK/18.6.4"))
    s.neg("build-hash", "query:instance", "build id (sha1 of the binary)").neg("install-id", "header:X-CRASHLYTICS-INSTALLATION-ID")
    return [r, s]


# ---- Google Mobile Ads (AdMob): GET googleads.g.doubleclick.net/mads/gma, location in `uule`
def admob(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    lat, lon = near(d, 0.0011, -0.0009, 7)
    uule_text = (f"role: 1\nproducer: 12\nprovenance: 6\ntimestamp: {EPOCH_MS * 1000}\n"
                 f"latlng{{\nlatitude_e7: {int(round(lat * 1e7))}\nlongitude_e7: {int(round(lon * 1e7))}\n}}\nradius: 65000\n")
    params = [("submodel", d["model"]), ("sys_name", "iOS" if ios else "android"), ("os_version", d["os_version"]),
              ("hl", d["lang"]), ("gl", d["country"]), ("format", "320x50_mb"), ("net", "wi"),
              ("u_sd", "3"), ("request_id", v.uuid()), ("app_name", f"341.ios.{d['app']['bundle']}" if ios else f"341.android.{d['app']['bundle']}"),
              ("msid", d["app"]["bundle"]), ("rdid", ad_id(d)), ("idtype", "idfa" if ios else "adid"), ("is_lat", "0"),
              ("uule", "a+" + base64.b64encode(uule_text.encode()).decode()), ("dtsdk", "afma-sdk-a-v234310999.232400000.1"),
              ("correlator", v.digits(16))]
    r = Req("sdk:admob", "GET", "https://googleads.g.doubleclick.net/mads/gma?" + q(params), ua=ua_for(d, "afma-sdk-a-v23.4.0"))
    r.leak("device-id", ad_type(d), "query:rdid")
    r.leak("location", "coordinates", "query:uule", "e7+text-proto+base64+url", form="E7 integers latitude_e7/longitude_e7")
    r.neg("uuid", "query:request_id").neg("order-id", "query:correlator", "16-digit correlator")
    # the limited-ad-tracking variant of the same call: zero IDFA / no AAID, nothing leaks
    params2 = [(k, (IDFA_ZEROS if k == "rdid" else ("1" if k == "is_lat" else val))) for k, val in params if k != "uule"]
    params2 = [(k, (v.uuid() if k == "request_id" else val)) for k, val in params2]
    z = Req("sdk:admob", "GET", "https://googleads.g.doubleclick.net/mads/gma?" + q(params2), ua=ua_for(d, "afma-sdk-a-v23.4.0"))
    z.neg("idfa-zeros", "query:rdid", "limit ad tracking").neg("uuid", "query:request_id")
    return [r, z]


# ---- Meta (Facebook) app events: form POST graph.facebook.com/vXX/{app}/activities
def meta(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    app_id = v.digits(15)
    anon = "XZ" + v.uuid(upper=True)
    ud = {"em": sha256(o["email"].strip().lower()), "ph": sha256(e164_digits(d)),
          "fn": sha256(fold(o["first"]).lower()), "ln": sha256(fold(o["last"]).lower().replace("'", ""))}
    events = [{"_eventName": "fb_mobile_activate_app", "_logTime": v.ms(4) // 1000, "_ui": "unknown", "_session_id": v.uuid()},
              {"_eventName": "fb_mobile_purchase", "_logTime": v.ms(9) // 1000, "fb_currency": "EUR", "_valueToSum": 12.5,
               "fb_order_id": v.luhn(16)}]
    extinfo = ["i2" if ios else "a2", d["app"]["bundle"], "341", "3.4.1", d["os_version"], d["model"], d["locale"],
               d["tz"], d["carrier"], 1170, 2532, "3.00", 6, 250, 120, d["tz"]]
    params = [("event", "CUSTOM_APP_EVENTS"), ("advertiser_id", ad_id(d)), ("advertiser_tracking_enabled", "1"),
              ("application_tracking_enabled", "1"), ("anon_id", anon), ("custom_events", jdump(events)),
              ("extinfo", jdump(extinfo)), ("ud", jdump(ud)), ("application_package_name", d["app"]["bundle"]),
              ("sdk", "ios" if ios else "android"), ("format", "json")]
    r = Req("sdk:meta", "POST", f"https://graph.facebook.com/v21.0/{app_id}/activities", body=form_body(params),
            mime="application/x-www-form-urlencoded", ua="FBiOSSDK.17.4.0" if ios else "FBAndroidSDK.17.0.2")
    r.leak("device-id", ad_type(d), "form:advertiser_id")
    r.leak("email", "email", "form:ud", "sha256+json-string", form="lowercase-trim", inner="$.em")
    r.leak("phone-number", "phone", "form:ud", "sha256+json-string", form="e164 digits without +", inner="$.ph")
    r.leak("name", "name", "form:ud", "sha256+json-string", form="first/last lowercase accents folded", inner="$.fn,$.ln")
    r.neg("install-id", "form:anon_id", "XZ + random UUID").neg("luhn-order-id", "form:custom_events", "$.fb_order_id")
    g = Req("sdk:meta", "GET", f"https://graph.facebook.com/v21.0/{app_id}?" + q(
        [("fields", "app_events_feature_bitmask,name,default_share_mode,ios_dialog_configs,supports_implicit_sdk_logging"),
         ("format", "json"), ("sdk", "ios" if ios else "android"), ("sdk_version", "17.4.0")]),
        headers=[("If-None-Match", f'"{v.hex(40)}"')], ua="FBiOSSDK.17.4.0" if ios else "FBAndroidSDK.17.0.2")
    g.neg("etag", "header:If-None-Match")
    return [r, g]


# ---- Adjust: form POST app.adjust.com/session and /event
def adjust(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    created = (START + timedelta(seconds=11)).strftime("%Y-%m-%dT%H:%M:%S.000Z") + ("+0100" if d["tz_offset"] == 60 else "-0300")
    common = [("app_token", v.token(12, "abcdefghijklmnopqrstuvwxyz0123456789")), ("app_version", "3.4.1"),
              ("created_at", created), ("environment", "production"), ("needs_response_details", "1"),
              ("os_name", "ios" if ios else "android"), ("os_version", d["os_version"]), ("tracking_enabled", "1"),
              ("country", d["country"]), ("language", d["lang"]), ("hardware_name", d["model"]),
              ("session_count", "3"), ("attribution_deeplink", "1")]
    if ios:
        ids = [("idfa", ad_id(d)), ("idfv", d["ids"]["idfv"]), ("ios_uuid", v.uuid(upper=True))]
    else:
        ids = [("gps_adid", ad_id(d)), ("android_uuid", v.uuid()), ("api_level", str(d["api_level"])),
               ("package_name", d["app"]["bundle"])]
    sess = Req("sdk:adjust", "POST", "https://app.adjust.com/session", body=form_body(common + ids),
               headers=[("Client-SDK", "ios4.38.4" if ios else "android4.38.5"),
                        ("Authorization", f'Signature signature="{v.hex(64)}",secret_id="3",algorithm="adj7",headers_id="1"')],
               mime="application/x-www-form-urlencoded", ua=ua_for(d, "Adjust"))
    sess.leak("device-id", ad_type(d), "form:idfa" if ios else "form:gps_adid")
    if ios:
        sess.leak("device-id", "idfv", "form:idfv")
    sess.neg("install-id", "form:ios_uuid" if ios else "form:android_uuid").neg("timestamp", "form:created_at")
    sess.neg("signature", "header:Authorization", "64-hex signature")
    cb = {"user_email": d["owner"]["email"], "plan": "plus"}
    ev = Req("sdk:adjust", "POST", "https://app.adjust.com/event", body=form_body(
        common + ids + [("event_token", "x7k2pa"), ("callback_params", jdump(cb)), ("revenue", "4.99"), ("currency", "EUR"),
                        ("transaction_id", v.luhn(15))]),
        headers=[("Client-SDK", "ios4.38.4" if ios else "android4.38.5")], mime="application/x-www-form-urlencoded", ua=ua_for(d, "Adjust"))
    ev.leak("device-id", ad_type(d), "form:idfa" if ios else "form:gps_adid")
    ev.leak("email", "email", "form:callback_params", "json-string", inner="$.user_email")
    ev.neg("luhn-order-id", "form:transaction_id")
    return [sess, ev]


# ---- AppsFlyer: JSON POST launches/inapps.appsflyer.com/api/v6.x/{ios,android}event
def appsflyer(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    af_uid = f"{EPOCH_MS - 86400000}-{v.digits(19)}"
    path = "iosevent" if ios else "androidevent"
    app_id = "id1567" + v.digits(6) if ios else d["app"]["bundle"]
    lat, lon = near(d, -0.0007, 0.0012, 6)
    body = {"advertiserId": ad_id(d), "advertiserIdEnabled": "true", "uid": af_uid, "af_timestamp": str(v.ms(14)),
            "appsflyerKey": v.token(22), "counter": "3", "iaecounter": "1", "eventName": "af_purchase",
            "eventValue": jdump({"af_revenue": "9.99", "af_currency": "EUR", "af_order_id": v.luhn(15),
                                 "customer_phone": o["national"]}),
            "model": d["model"], "lang": d["lang"], "country": d["country"], "network": "WIFI",
            "user_emails": [{"sha256_el_arr": [sha256(o["email"].strip().lower())]}],
            "location": {"lat": f"{lat}", "lon": f"{lon}", "t": str(v.ms(12))}}
    if ios:
        body["vendorId"] = d["ids"]["idfv"]
    else:
        body["brand"] = d["brand"]
        body["device"] = d["device_code"]
        body["deviceData"] = {"arch": "", "build_display_id": "UQ1A.240205.004", "cpu_abi": "arm64-v8a", "dim": {"xdp": "411.0"}}
    r = Req("sdk:appsflyer", "POST", f"https://inapps.appsflyer.com/api/v6.14/{path}?app_id={app_id}&buildnumber=6.14.2",
            body=jdump(body), mime="application/json", ua=ua_for(d, "AppsFlyer"))
    r.leak("device-id", ad_type(d), "body:$.advertiserId")
    if ios:
        r.leak("device-id", "idfv", "body:$.vendorId")
    r.leak("email", "email", "body:$.user_emails[0].sha256_el_arr[0]", "sha256", form="lowercase-trim")
    r.leak("phone-number", "phone", "body:$.eventValue", "json-string", form="national", inner="$.customer_phone")
    r.leak("location", "coordinates", "body:$.location.lat,lon", form="dp6 strings")
    r.neg("install-id", "body:$.uid", "AppsFlyer id: timestamp-random").neg("luhn-order-id", "body:$.eventValue", "$.af_order_id")
    r.neg("timestamp", "body:$.af_timestamp")
    return [r]


# ---- Branch: JSON POST api2.branch.io/v1/install and /v2/event/standard
def branch(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    vid, vtype = vendor_id(d)
    key = "key_live_" + v.token(32)
    install = {"hardware_id": vid, "is_hardware_id_real": True, "brand": "Apple" if ios else d["brand"], "model": d["model"],
               "os": "iOS" if ios else "Android", "os_version": d["os_version"], "screen_width": 1179, "screen_height": 2556,
               "wifi": True, "locale": d["locale"], "country": d["country"], "language": d["lang"],
               "local_ip": "192.168.1.37", "branch_key": key, "retryNumber": 0, "debug": False,
               "randomized_device_token": v.digits(18), "randomized_bundle_token": v.digits(18),
               "first_install_time": v.ms(-86400), "latest_install_time": v.ms(-86400), "update": 0}
    if ios:
        install["hardware_id_type"] = "vendor_id"
        install["ios_vendor_id"] = vid
        install["advertising_ids"] = {"idfa": IDFA_ZEROS}
    else:
        install["google_advertising_id"] = ad_id(d)
        install["advertising_ids"] = {"aaid": ad_id(d)}
    r = Req("sdk:branch", "POST", "https://api2.branch.io/v1/install", body=jdump(install), mime="application/json",
            ua=ua_for(d, "Branch"))
    r.leak("device-id", vtype, "body:$.hardware_id")
    if ios:
        r.leak("device-id", "idfv", "body:$.ios_vendor_id")
        r.neg("idfa-zeros", "body:$.advertising_ids.idfa")
    else:
        r.leak("device-id", "advertising_id", "body:$.google_advertising_id")
    r.neg("install-id", "body:$.randomized_device_token").neg("install-id", "body:$.randomized_bundle_token")
    user = {"developer_identity": d["owner"]["email"].upper(), "os": "iOS" if ios else "Android", "os_version": d["os_version"],
            "model": d["model"], "country": d["country"], "language": d["lang"], "limit_ad_tracking": 0,
            "randomized_device_token": install["randomized_device_token"]}
    if ios:
        user["idfv"] = vid
    else:
        user["android_id"] = vid
        user["aaid"] = ad_id(d)
    event = {"name": "PURCHASE", "user_data": user, "branch_key": key,
             "event_data": {"currency": "USD", "revenue": 19.99, "transaction_id": "T-" + v.digits(10)},
             "content_items": [{"$product_name": "Season pass", "$sku": "SP-2026"}]}
    e = Req("sdk:branch", "POST", "https://api2.branch.io/v2/event/standard", body=jdump(event), mime="application/json",
            ua=ua_for(d, "Branch"))
    e.leak("device-id", vtype, f"body:$.user_data.{'idfv' if ios else 'android_id'}")
    if not ios:
        e.leak("device-id", "advertising_id", "body:$.user_data.aaid")
    e.leak("email", "email", "body:$.user_data.developer_identity", form="uppercase")
    e.neg("order-id", "body:$.event_data.transaction_id")
    return [r, e]


# ---- Kochava: JSON POST control.kochava.com/track/json
def kochava(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    lat, lon = near(d, 0.0004, 0.0006, 5)
    data = {"device": f"{d['model']}-{'Apple' if ios else d['brand']}", "disp_h": 2556, "disp_w": 1179, "locale": d["locale"],
            "timezone": d["tz"], "usertime": v.ms(20) // 1000, "uptime": 812.4, "network_conn_type": "wifi",
            "platform": d["platform"], "os_version": ("iOS " if ios else "Android ") + d["os_version"],
            "location": {"latitude": lat, "longitude": lon, "accuracy": 12.0},
            # identity link: the login the app set, an e-mail with the spaces the user typed
            "identity_link": {"login": " " + d["owner"]["email"] + " ", "user_tier": "gold"}}
    if ios:
        data["idfa"] = ad_id(d)
        data["idfv"] = d["ids"]["idfv"]
    else:
        data["adid"] = ad_id(d)
        data["android_id"] = d["ids"]["android_id"]
    body = {"action": "install", "kochava_app_id": "ko" + d["app"]["name"].lower() + "-prod-" + v.hex(6),
            "kochava_device_id": "KA" + v.hex(32), "sdk_version": "iOSTracker 7.5.1" if ios else "AndroidTracker 5.6.0",
            "sdk_protocol": "17", "nt_id": v.uuid(), "data": data}
    r = Req("sdk:kochava", "POST", "https://control.kochava.com/track/json", body=jdump(body), mime="application/json",
            ua=ua_for(d, "KochavaTracker"))
    if ios:
        r.leak("device-id", "idfa", "body:$.data.idfa").leak("device-id", "idfv", "body:$.data.idfv")
    else:
        r.leak("device-id", "advertising_id", "body:$.data.adid").leak("device-id", "android_id", "body:$.data.android_id")
    r.leak("location", "coordinates", "body:$.data.location.latitude,longitude", form="dp5 fields")
    r.neg("install-id", "body:$.kochava_device_id", "KA + random hex").neg("uuid", "body:$.nt_id")
    r.leak("email", "email", "body:$.data.identity_link.login", form="untrimmed")
    return [r]


# ---- Amplitude: HTTP API v2 JSON (Swift/Kotlin SDKs) and the legacy form upload (e= JSON, checksum=md5)
def amplitude(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    api_key = v.hex(32)
    lat, lon = near(d, 0.0009, 0.0003, 4)
    ev = {"event_type": "session_start", "user_id": o["email"], "device_id": d["ids"]["idfv"] if ios else v.uuid() + "R",
          "time": v.ms(21), "session_id": v.ms(20), "insert_id": v.uuid(), "event_id": 7, "platform": "iOS" if ios else "Android",
          "os_name": "ios" if ios else "android", "os_version": d["os_version"], "device_model": d["model"],
          "carrier": d["carrier"], "country": d["country"], "language": d["lang"], "library": "amplitude-swift/1.9.2" if ios else "amplitude-analytics-android/1.16.8",
          "location_lat": lat, "location_lng": lon, "ip": "$remote"}
    if ios:
        ev["idfv"] = d["ids"]["idfv"]
        ev["idfa"] = ad_id(d)
    else:
        ev["adid"] = ad_id(d)
        ev["android_app_set_id"] = v.uuid()
    if ios:
        r = Req("sdk:amplitude", "POST", "https://api2.amplitude.com/2/httpapi",
                body=jdump({"api_key": api_key, "events": [ev], "options": {"min_id_length": 5}, "client_upload_time": "2026-11-03T09:12:21.004Z"}),
                mime="application/json", ua=ua_for(d, "amplitude-swift"))
        r.leak("device-id", "idfv", "body:$.events[0].device_id").leak("device-id", "idfv", "body:$.events[0].idfv")
        r.leak("device-id", "idfa", "body:$.events[0].idfa")
        r.leak("email", "email", "body:$.events[0].user_id")
        r.leak("location", "coordinates", "body:$.events[0].location_lat,location_lng", form="dp4 fields")
    else:
        e = jdump([ev])
        upload = str(v.ms(22))
        params = [("v", "2"), ("client", api_key), ("e", e), ("upload_time", upload), ("checksum", md5("2" + api_key + e + upload))]
        r = Req("sdk:amplitude", "POST", "https://api.amplitude.com/", body=form_body(params),
                mime="application/x-www-form-urlencoded", ua=ua_for(d, "okhttp/4.12.0"))
        r.leak("device-id", "advertising_id", "form:e", "json-string", inner="$[0].adid")
        r.leak("email", "email", "form:e", "json-string", inner="$[0].user_id")
        r.leak("location", "coordinates", "form:e", "json-string", form="dp4 fields", inner="$[0].location_lat,location_lng")
        r.neg("md5", "form:checksum", "checksum of the upload").neg("uuid", "form:e", "$[0].device_id random + R")
    r.neg("api-key", "body:api_key", "32-hex project key").neg("uuid", "body:insert_id")
    return [r]


# ---- Mixpanel: data=base64(JSON) to /track and /engage
def mixpanel(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    token = v.hex(32)
    if ios:
        distinct = "$device:" + d["ids"]["idfv"]
    else:
        distinct = "$device:" + v.uuid()
    props = {"token": token, "time": v.ms(30), "distinct_id": distinct, "$os": "iOS" if ios else "Android",
             "$os_version": d["os_version"], "$model": d["model"], "$manufacturer": "Apple" if ios else d["brand"],
             "$app_version_string": "3.4.1", "mp_lib": "swift" if ios else "android", "$lib_version": "4.3.0",
             "$radio": "5G", "$carrier": d["carrier"], "$screen_height": 2556, "$insert_id": v.hex(16)}
    if ios:
        props["$device_id"] = d["ids"]["idfv"]
        props["$ios_ifa"] = ad_id(d)
    else:
        props["$device_id"] = distinct[8:]
        props["$android_devices"] = [v.token(152)]
    track = [{"event": "$ae_session", "properties": props}]
    r = Req("sdk:mixpanel", "POST", "https://api.mixpanel.com/track/?ip=1",
            body=form_body([("data", base64.b64encode(jdump(track).encode()).decode())]),
            mime="application/x-www-form-urlencoded", ua=ua_for(d, "Mixpanel"))
    if ios:
        r.leak("device-id", "idfv", "form:data", "base64", inner="$[0].properties.distinct_id ($device: prefix)")
        r.leak("device-id", "idfa", "form:data", "base64", inner="$[0].properties.$ios_ifa")
    else:
        r.neg("install-id", "form:data", "random $device_id").neg("push-token", "form:data", "$android_devices")
    r.neg("api-key", "form:data", "project token")
    first, last = o["first"], o["last"]
    eng = [{"$token": token, "$distinct_id": distinct, "$time": v.ms(31),
            "$set": {"$email": o["email"], "$phone": o["e164"], "$first_name": first, "$last_name": last,
                     "plan": "free"}}]
    e = Req("sdk:mixpanel", "POST", "https://api.mixpanel.com/engage/",
            body=form_body([("data", base64.b64encode(jdump(eng, ascii_only=True).encode()).decode())]),
            mime="application/x-www-form-urlencoded", ua=ua_for(d, "Mixpanel"))
    e.leak("email", "email", "form:data", "base64", inner="$[0].$set.$email")
    e.leak("phone-number", "phone", "form:data", "base64", form="e164", inner="$[0].$set.$phone")
    e.leak("name", "name", "form:data", "json-\\u-escapes+base64", form="split first/last", inner="$[0].$set.$first_name,$last_name")
    if ios:
        e.leak("device-id", "idfv", "form:data", "base64", inner="$[0].$distinct_id ($device: prefix)")
    return [r, e]


# ---- Segment: JSON batch to api.segment.io/v1/b (Android: gzip), Basic auth with the write key
def segment(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    write_key = v.token(32)
    lat, lon = near(d, -0.0012, -0.0010, 6)
    device = {"id": d["ids"]["idfv"] if ios else d["ids"]["android_id"], "advertisingId": ad_id(d), "adTrackingEnabled": True,
              "manufacturer": "Apple" if ios else d["brand"], "model": d["model"], "type": d["platform"]}
    ctx = {"app": {"build": "341", "name": d["app"]["name"], "namespace": d["app"]["bundle"], "version": "3.4.1"},
           "device": device, "library": {"name": "analytics-swift" if ios else "analytics-kotlin", "version": "1.6.1"},
           "locale": d["locale"].replace("_", "-"), "location": {"latitude": lat, "longitude": lon, "speed": 0},
           "network": {"wifi": True, "carrier": d["carrier"]}, "os": {"name": d["platform"], "version": d["os_version"]},
           "timezone": d["tz"]}
    anon = v.uuid()
    batch = [{"type": "identify", "userId": "u_" + v.digits(8), "anonymousId": anon, "messageId": v.uuid(),
              "timestamp": "2026-11-03T09:12:40.118Z", "context": ctx,
              "traits": {"email": o["email"], "phone": o["display"], "firstName": o["first"].upper(), "lastName": o["last"].upper()}},
             {"type": "track", "event": "Ride Started", "anonymousId": anon, "messageId": v.uuid(),
              "timestamp": "2026-11-03T09:12:41.003Z", "context": ctx, "properties": {"ride_id": "R" + v.digits(12)}}]
    body = jdump({"batch": batch, "sentAt": "2026-11-03T09:12:42.000Z", "writeKey": write_key}).encode()
    hdr = [("Authorization", "Basic " + base64.b64encode((write_key + ":").encode()).decode())]
    r = Req("sdk:segment", "POST", "https://api.segment.io/v1/b", headers=hdr, body=body if ios else gz(body),
            mime="application/json", content_encoding=None if ios else "gzip", ua=ua_for(d, "analytics"))
    enc = "plain" if ios else "gzip"
    r.leak("device-id", "idfv" if ios else "android_id", "body:$.batch[0].context.device.id", enc)
    r.leak("device-id", ad_type(d), "body:$.batch[0].context.device.advertisingId", enc)
    r.leak("email", "email", "body:$.batch[0].traits.email", enc)
    r.leak("phone-number", "phone", "body:$.batch[0].traits.phone", enc, form="international display")
    r.leak("name", "name", "body:$.batch[0].traits.firstName,lastName", enc, form="split first/last upper case")
    r.leak("location", "coordinates", "body:$.batch[*].context.location", enc, form="dp6 fields")
    r.neg("uuid", "body:$.batch[*].messageId").neg("install-id", "body:$.batch[*].anonymousId").neg("api-key", "header:Authorization")
    return [r]


# ---- Braze: JSON POST sdk.<cluster>.braze.com/api/v3/data
def braze(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    lat, lon = near(d, 0.0002, -0.0015, 7)
    device = {"model": d["model"], "os_version": d["os_version"], "carrier": d["carrier"], "locale": d["locale"],
              "resolution": "1179x2556", "time_zone": d["tz"], "ad_tracking_enabled": True}
    if ios:
        device["ios_idfa"] = ad_id(d)
        device["ios_idfv"] = d["ids"]["idfv"]
    else:
        device["google_ad_id"] = ad_id(d)
    session = v.uuid()
    body = {"api_key": v.uuid(), "device_id": v.uuid(), "time": v.ms(50) // 1000, "sdk_version": "10.2.0" if ios else "32.1.0",
            "app_version": "3.4.1", "device": device,
            "attributes": [{"user_id": "8812" + v.digits(6), "email": o["email"], "first_name": o["first"], "last_name": o["last"],
                            "phone": o["national"], "country": d["country"]}],
            "events": [{"name": "ss", "data": {}, "time": v.ms(49) / 1000, "session_id": session},
                       {"name": "lr", "data": {"latitude": lat, "longitude": lon, "altitude": 14.2, "ll_accuracy": 9.0},
                        "time": v.ms(50) / 1000, "session_id": session}],
            "respond_with": {"config": {"config_time": v.ms(-3600) // 1000}}}
    r = Req("sdk:braze", "POST", "https://sdk.iad-05.braze.com/api/v3/data", body=jdump(body, ascii_only=True),
            headers=[("X-Braze-Api-Key", body["api_key"]), ("X-Braze-DataRequest", "true")], mime="application/json",
            ua=ua_for(d, "Braze"))
    if ios:
        r.leak("device-id", "idfa", "body:$.device.ios_idfa").leak("device-id", "idfv", "body:$.device.ios_idfv")
    else:
        r.leak("device-id", "advertising_id", "body:$.device.google_ad_id")
    r.leak("email", "email", "body:$.attributes[0].email")
    r.leak("name", "name", "body:$.attributes[0].first_name,last_name", "json-\\u-escapes", form="split first/last")
    r.leak("phone-number", "phone", "body:$.attributes[0].phone", form="national")
    r.leak("location", "coordinates", "body:$.events[1].data.latitude,longitude", form="dp7 fields")
    r.neg("uuid", "body:$.api_key", "app API key").neg("install-id", "body:$.device_id").neg("uuid", "body:$.events[*].session_id")
    return [r]


# ---- OneSignal: players API (device, email and SMS subscriptions) and on_session with location
def onesignal(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    app_id = v.uuid()
    push = v.hex(64) if ios else v.token(22) + ":APA91b" + v.token(134)
    player = {"app_id": app_id, "device_type": 0 if ios else 1, "identifier": push, "ad_id": ad_id(d), "device_model": d["model"],
              "device_os": d["os_version"], "game_version": "341", "language": d["lang"], "timezone": d["tz_offset"] * 60,
              "timezone_id": d["tz"], "sdk": "050122", "net_type": 0, "carrier": d["carrier"], "rooted": False}
    r = Req("sdk:onesignal", "POST", "https://api.onesignal.com/players", body=jdump(player), mime="application/json",
            headers=[("SDK-Version", "onesignal/ios/050122" if ios else "onesignal/android/050122")], ua=ua_for(d, "OneSignal"))
    r.leak("device-id", ad_type(d), "body:$.ad_id").neg("push-token", "body:$.identifier").neg("uuid", "body:$.app_id")
    # user model API: SMS and e-mail subscriptions of the logged-in user
    sub = Req("sdk:onesignal", "POST", f"https://api.onesignal.com/apps/{app_id}/users", body=jdump(
        {"identity": {"external_id": "8812" + v.digits(6)}, "properties": {"language": d["lang"], "timezone_id": d["tz"]},
         "subscriptions": [{"type": "SMS", "token": o["e164"], "sms_auth_hash": v.hex(64)},
                           {"type": "Email", "token": o["email"], "email_auth_hash": v.hex(64)}]}), mime="application/json",
        ua=ua_for(d, "OneSignal"))
    sub.leak("phone-number", "phone", "body:$.subscriptions[0].token", form="e164").leak("email", "email", "body:$.subscriptions[1].token")
    sub.neg("hmac", "body:$.subscriptions[*].*_auth_hash")
    lat, lon = near(d, 0.0013, 0.0002, 6)
    player_id = v.uuid()
    ons = Req("sdk:onesignal", "POST", f"https://api.onesignal.com/players/{player_id}/on_session", body=jdump(
        {"app_id": app_id, "lat": lat, "long": lon, "loc_acc_vert": 3.0, "loc_acc": 11.0, "loc_type": 1, "loc_bg": False,
         "loc_time_stamp": v.ms(60)}), mime="application/json", ua=ua_for(d, "OneSignal"))
    ons.leak("location", "coordinates", "body:$.lat,long", form="dp6 fields (lat/long)")
    ons.neg("uuid", "url", "player id in the path")
    return [r, sub, ons]


# ---- CleverTap: JSON array POST <region>.clevertap-prod.com/a1
def clevertap(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    account = "W" + v.token(2, "0123456789") + "-" + v.token(3, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") + "-" + v.token(4, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
    guid = "__g" + ad_id(d).replace("-", "").lower()
    meta_ = {"g": guid, "type": "meta", "af": {"Build": "341", "Version": "3.4.1", "OS Version": d["os_version"], "SDK Version": 70001,
                                               "Make": "Apple" if ios else d["brand"], "Model": d["model"], "Carrier": d["carrier"],
                                               "useIP": False, "OS": "iOS" if ios else "Android", "wdt": 2.72, "hgt": 5.91,
                                               "dpi": 460, "lib": "iOS" if ios else "Android", "cc": d["country"].lower()},
             "id": account, "tk": v.token(6, "abcdef0123456789") + "-" + v.token(3), "l_ts": v.ms(-7200) // 1000,
             "f_ts": v.ms(-86400) // 1000, "ddnd": False}
    profile = {"type": "profile", "profile": {"Name": o["name"], "Email": o["email"], "Phone": "00" + e164_digits(d),
                                              "Identity": "cust-" + v.digits(7)}, "s": v.ms(-60) // 1000, "pg": 1}
    event = {"type": "event", "evtName": "Charged", "evtData": {"Amount": 42.0, "Charged ID": v.luhn(15),
                                                                 "Payment mode": "card"}, "s": v.ms(-60) // 1000, "pg": 2,
             "ep": v.ms(70) // 1000}
    path = f"/a1?os={'iOS' if ios else 'Android'}&t=70001&z={account}&ts={v.ms(70) // 1000}"
    r = Req("sdk:clevertap", "POST", "https://eu1.clevertap-prod.com" + path, body=jdump([meta_, profile, event]),
            headers=[("X-CleverTap-Account-ID", account), ("X-CleverTap-Token", meta_["tk"])], mime="application/json; charset=utf-8",
            ua=ua_for(d, "CleverTap"))
    r.leak("device-id", ad_type(d), "body:$[0].g", form="__g prefix, no dashes, lower case")
    r.leak("name", "name", "body:$[1].profile.Name").leak("email", "email", "body:$[1].profile.Email")
    r.leak("phone-number", "phone", "body:$[1].profile.Phone", form="00 international prefix")
    r.neg("luhn-order-id", "body:$[2].evtData.Charged ID").neg("timestamp", "query:ts")
    return [r]


# ---- MoEngage: JSON POST sdk-0X.moengage.com/v2/sdk/report/{APP_ID}; user attributes as JSON strings
def moengage(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    app_id = v.token(24, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    lat, lon = near(d, -0.0003, -0.0004, 5)
    qp = {"os": "iOS" if ios else "ANDROID", "app_id": app_id, "app_ver": "341", "sdk_ver": "130500",
          "unique_id": v.uuid(), "device_ts": str(v.ms(80)), "device_tz": d["tz"], "device_tz_offset": str(d["tz_offset"] * 60000)}
    if ios:
        qp["moe_idfv"] = d["ids"]["idfv"]
        qp["moe_idfa"] = ad_id(d)
    else:
        qp["moe_gaid"] = ad_id(d)
        qp["android_id"] = d["ids"]["android_id"]
        qp["moe_push_ser"] = "FCM"
    attrs = {"USER_ATTRIBUTE_USER_EMAIL": o["email"], "USER_ATTRIBUTE_USER_MOBILE": o["e164"][1:],
             "USER_ATTRIBUTE_USER_FIRST_NAME": fold(o["first"]), "USER_ATTRIBUTE_USER_LAST_NAME": fold(o["last"])}
    views = [{"EVENT_ACTION": "EVENT_ACTION_USER_ATTRIBUTE", "EVENT_ATTRS": jdump(attrs), "EVENT_G_TIME": str(v.ms(79)),
              "EVENT_L_TIME": "3:11:2026:10:12:59"},
             {"EVENT_ACTION": "EVENT_ACTION_USER_ATTRIBUTE", "EVENT_ATTRS": jdump({"last_known_location": f"{lat},{lon}"}),
              "EVENT_G_TIME": str(v.ms(80))}]
    r = Req("sdk:moengage", "POST", f"https://sdk-02.moengage.com/v2/sdk/report/{app_id}", body=jdump(
        {"query_params": qp, "viewsInfo": views, "meta": {"bid": v.uuid(), "request_time": str(v.ms(81))}}),
        headers=[("MOE-APPKEY", app_id), ("MOE-REQUEST-ID", v.hex(40))], mime="application/json", ua=ua_for(d, "MoEngage"))
    if ios:
        r.leak("device-id", "idfv", "body:$.query_params.moe_idfv").leak("device-id", "idfa", "body:$.query_params.moe_idfa")
    else:
        r.leak("device-id", "advertising_id", "body:$.query_params.moe_gaid").leak("device-id", "android_id", "body:$.query_params.android_id")
    r.leak("email", "email", "body:$.viewsInfo[0].EVENT_ATTRS", "json-string", inner="$.USER_ATTRIBUTE_USER_EMAIL")
    r.leak("phone-number", "phone", "body:$.viewsInfo[0].EVENT_ATTRS", "json-string", form="e164 without +", inner="$.USER_ATTRIBUTE_USER_MOBILE")
    r.leak("name", "name", "body:$.viewsInfo[0].EVENT_ATTRS", "json-string", form="split first/last, accents folded")
    r.leak("location", "coordinates", "body:$.viewsInfo[1].EVENT_ATTRS", "json-string", form="dp5 'lat,lng'", inner="$.last_known_location")
    r.neg("install-id", "body:$.query_params.unique_id").neg("request-hash", "header:MOE-REQUEST-ID", "40-hex request id")
    return [r]


# ---- Flurry: binary agent report POST data.flurry.com/aap.do (Java DataOutputStream / native)
def flurry(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    api_key = v.token(20, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    lat, lon = near(d, 0.0006, 0.0008, 6)
    out = bytearray()
    out += struct.pack(">HH", 1, 26)       # frame version, agent protocol
    out += write_utf(api_key) + write_utf("3.4.1")
    out += struct.pack(">q", v.ms(90))
    if ios:
        # the iOS agent writes native (little-endian) values: id as a length-prefixed string, location as float32
        vid = d["ids"]["idfv"]
        out += struct.pack("<H", 2) + struct.pack("<H", len(vid)) + vid.encode()
        out += struct.pack("<ff", lat, lon) + struct.pack("<f", 10.0)
    else:
        out += struct.pack(">H", 2) + write_utf("AND" + d["ids"]["android_id"])
        out += struct.pack(">dd", lat, lon) + struct.pack(">f", 10.0)
    out += struct.pack(">q", v.ms(91)) + write_utf("sessionStart") + bytes(v.rng.getrandbits(8) for _ in range(24))
    r = Req("sdk:flurry", "POST", "https://data.flurry.com/aap.do", body=bytes(out), mime="application/octet-stream",
            ua=ua_for(d, "FlurryAgent"))
    if ios:
        r.leak("device-id", "idfv", "body", "binary length-prefixed string (LE)")
        r.leak("location", "coordinates", "body", "float32 LE", form="binary float32 pair")
    else:
        r.leak("device-id", "android_id", "body", "prefix AND+writeUTF", form="AND<android_id>")
        r.leak("location", "coordinates", "body", "float64 BE", form="binary writeDouble pair")
    r.neg("api-key", "body", "Flurry API key (writeUTF)").neg("random-bytes", "body", "trailing checksum bytes")
    return [r]


# ---- Sentry: envelope POST o<org>.ingest.sentry.io/api/<project>/envelope/
def sentry(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    key = v.hex(32)
    event_id = v.hex(32)
    crumb_url = f"https://{d['app']['host']}/v1/otp/send?phone={quote(o['e164'], safe='')}&channel=sms"
    event = {"event_id": event_id, "timestamp": 1793697162.118, "platform": "cocoa" if ios else "java", "level": "error",
             "release": f"{d['app']['bundle']}@3.4.1+341", "environment": "production",
             "user": {"id": v.uuid(), "email": o["email"], "ip_address": "{{auto}}"},
             "contexts": {"device": {"model": d["model"], "family": "iOS" if ios else "Android", "arch": "arm64e" if ios else "arm64-v8a",
                                     "simulator": False, "boot_time": "2026-11-02T07:01:44Z"},
                          "os": {"name": "iOS" if ios else "Android", "version": d["os_version"]},
                          "app": {"app_identifier": d["app"]["bundle"], "app_build": "341", "build_type": "app_store"}},
             "breadcrumbs": {"values": [{"type": "http", "category": "http", "timestamp": 1793697150.2,
                                         "data": {"url": crumb_url, "method": "POST", "status_code": 500}}]},
             "debug_meta": {"images": [{"type": "macho" if ios else "elf", "debug_id": v.uuid(), "code_id": v.hex(40)}]},
             "exception": {"values": [{"type": "NSInvalidArgumentException" if ios else "java.lang.IllegalStateException",
                                       "value": "unexpected nil"}]}}
    payload = jdump(event).encode()
    env = jdump({"event_id": event_id, "sent_at": "2026-11-03T09:12:44.118Z", "sdk": {"name": "sentry.cocoa" if ios else "sentry.java.android",
                                                                                       "version": "8.36.0"}}).encode() + b"\n"
    env += jdump({"type": "event", "length": len(payload)}).encode() + b"\n" + payload + b"\n"
    session = jdump({"sid": v.uuid(), "did": v.uuid(), "init": True, "started": "2026-11-03T09:10:01Z", "status": "ok", "seq": 0,
                     "attrs": {"release": event["release"], "environment": "production"}}).encode()
    env += jdump({"type": "session", "length": len(session)}).encode() + b"\n" + session + b"\n"
    r = Req("sdk:sentry", "POST", f"https://o4504{v.digits(6)}.ingest.sentry.io/api/45{v.digits(8)}/envelope/", body=env,
            headers=[("X-Sentry-Auth", f"Sentry sentry_version=7, sentry_client=sentry.cocoa/8.36.0, sentry_key={key}")],
            mime="application/x-sentry-envelope", ua=ua_for(d, "sentry"))
    r.leak("email", "email", "body:item[0].$.user.email")
    r.leak("phone-number", "phone", "body:item[0].$.breadcrumbs.values[0].data.url", "url", form="e164 in a query inside a JSON string")
    r.neg("build-hash", "body:item[0].$.debug_meta.images[0].code_id").neg("uuid", "body:item[0].$.user.id")
    r.neg("install-id", "body:item[1].$.did").neg("api-key", "header:X-Sentry-Auth")
    return [r]


# ---- Datadog RUM: NDJSON POST browser-intake-datadoghq.eu/api/v2/rum (Android: gzip)
def datadog(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    lat, lon = near(d, 0.0005, -0.0002, 4)
    app, session = v.uuid(), v.uuid()
    base = {"application": {"id": app}, "session": {"id": session, "type": "user"}, "source": d["platform"],
            "service": d["app"]["bundle"], "version": "3.4.1",
            "usr": {"id": "8812" + v.digits(6), "name": o["name"], "email": o["email"]},
            "device": {"type": "mobile", "name": d["model"], "model": d["model"], "brand": "Apple" if ios else d["brand"],
                       "architecture": "arm64e" if ios else "arm64-v8a"},
            "os": {"name": "iOS" if ios else "Android", "version": d["os_version"]},
            "connectivity": {"status": "connected", "interfaces": ["wifi"]}, "_dd": {"format_version": 2}}
    view = dict(base, type="view", date=v.ms(100), view={"id": v.uuid(), "name": "MapScreen", "url": "MapViewController"},
                context={"geo.lat": lat, "geo.lng": lon})
    res = dict(base, type="resource", date=v.ms(101), resource={"id": v.uuid(), "type": "native", "method": "GET", "status_code": 200,
                                                                 "url": f"https://{d['app']['host']}/v3/weather/{lat:.4f}/{lon:.4f}/now"})
    body = (jdump(view) + "\n" + jdump(res)).encode()
    qs = q([("ddsource", d["platform"]), ("ddtags", f"service:{d['app']['bundle']},version:3.4.1,sdk_version:2.18.0,env:prod"),
            ("batch_time", str(v.ms(102)))])
    r = Req("sdk:datadog", "POST", "https://browser-intake-datadoghq.eu/api/v2/rum?" + qs, body=body if ios else gz(body),
            headers=[("DD-API-KEY", "pub" + v.hex(32)), ("DD-EVP-ORIGIN", d["platform"]), ("DD-EVP-ORIGIN-VERSION", "2.18.0"),
                     ("DD-REQUEST-ID", v.uuid())], mime="text/plain;charset=UTF-8",
            content_encoding=None if ios else "gzip", ua=ua_for(d, "Datadog"))
    enc = "plain" if ios else "gzip"
    r.leak("name", "name", "body:line[*].$.usr.name", enc).leak("email", "email", "body:line[*].$.usr.email", enc)
    r.leak("location", "coordinates", "body:line[0].$.context['geo.lat','geo.lng']", enc, form="dp4 fields")
    r.leak("location", "coordinates", "body:line[1].$.resource.url", "url-path+" + enc, form="dp4 path segments lat/lng")
    r.neg("uuid", "body:application.id").neg("uuid", "header:DD-REQUEST-ID").neg("api-key", "header:DD-API-KEY")
    return [r]


# ---- New Relic mobile agent: connect + data harvest (JSON arrays)
def newrelic(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    nr_device = v.uuid(upper=ios)
    device = ["iOS" if ios else "Android", d["os_version"], d["model"], "iOSAgent" if ios else "AndroidAgent", "7.5.2", nr_device,
              "", "", "Apple" if ios else d["brand"], {"size": "normal", "platform": "Native", "platformVersion": "7.5.2"}]
    lic = "AA" + v.hex(40)
    c = Req("sdk:newrelic", "POST", "https://mobile-collector.newrelic.com/mobile/v5/connect",
            body=jdump([[d["app"]["name"], "3.4.1", d["app"]["bundle"]], device]), mime="application/json",
            headers=[("X-App-License-Key", lic), ("X-NewRelic-OS-Name", "iOS" if ios else "Android")], ua=ua_for(d, "NewRelic"))
    c.neg("install-id", "body:$[1][5]", "agent-generated device uuid").neg("api-key", "header:X-App-License-Key")
    events = [{"timestamp": v.ms(110), "eventType": "Mobile", "category": "Session", "sessionId": v.uuid(), "uuid": nr_device,
               "osName": "iOS" if ios else "Android", "userId": o["email"], "memUsageMb": 212.4},
              {"timestamp": v.ms(111), "eventType": "MobileUserAction", "name": "Tap", "customerPhone": o["display"],
               "actionType": "tap"}]
    h = Req("sdk:newrelic", "POST", "https://mobile-collector.newrelic.com/mobile/v3/data",
            body=jdump([[int(v.digits(9)), int(v.digits(9))], device, 60, [], [], [], [], {}, events]), mime="application/json",
            headers=[("X-App-License-Key", lic), ("X-NewRelic-ID", v.b64(9))], ua=ua_for(d, "NewRelic"))
    h.leak("email", "email", "body:$[8][0].userId").leak("phone-number", "phone", "body:$[8][1].customerPhone", form="international display")
    h.neg("install-id", "body:$[1][5]").neg("uuid", "body:$[8][0].sessionId")
    return [c, h]


# ---- Unity Ads: auction-load request (query + JSON body)
def unity_ads(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    game = v.digits(7)
    qs = [("deviceModel", d["model"]), ("platform", d["platform"]), ("sdkVersion", "4400"), ("stores", "apple" if ios else "google"),
          ("screenWidth", "1179"), ("screenHeight", "2556"), ("connectionType", "wifi"), ("networkType", "0"),
          ("advertisingTrackingId", ad_id(d)), ("limitAdTracking", "false")]
    body = {"bundleVersion": "3.4.1", "bundleId": d["app"]["bundle"], "coppa": False, "language": d["locale"],
            "timeZone": "GMT" + ("+" if d["tz_offset"] >= 0 else "-") + f"{abs(d['tz_offset']) // 60:02d}:00",
            "deviceFreeSpace": 52413440, "networkOperatorName": d["carrier"], "volume": 0.5,
            "analyticsUserId": v.hex(32), "analyticsSessionId": v.digits(19), "idfi": v.uuid(), "gameSessionId": int(v.digits(12)),
            "deviceMake": "Apple" if ios else d["brand"], "sessionDepth": 2, "placements": {"rewardedVideo": {"adTypes": ["VIDEO"]}}}
    if ios:
        body["vendorIdentifier"] = d["ids"]["idfv"]
    else:
        body["androidId"] = d["ids"]["android_id"]
    r = Req("sdk:unity-ads", "POST", f"https://auction-load.unityads.unity3d.com/v6/games/{game}/requests?" + q(qs),
            body=jdump(body), mime="application/json", ua=ua_for(d, "UnityAds"))
    r.leak("device-id", ad_type(d), "query:advertisingTrackingId")
    r.leak("device-id", "idfv" if ios else "android_id", "body:$.vendorIdentifier" if ios else "body:$.androidId")
    r.neg("install-id", "body:$.analyticsUserId").neg("install-id", "body:$.idfi").neg("order-id", "body:$.analyticsSessionId")
    return [r]


# ---- AppLovin MAX: mediation request, gzip JSON
def applovin(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    info = {"brand": "Apple" if ios else d["brand"], "model": d["model"], "os": d["os_version"], "revision": d["model"],
            "carrier": d["carrier"], "country_code": d["country"].lower(), "locale": d["locale"], "tz_offset": d["tz_offset"] / 60,
            "volume": 50, "network": "wifi", "dnt": False, "lmt": False}
    if ios:
        info["idfa"] = ad_id(d)
        info["idfv"] = d["ids"]["idfv"]
    else:
        info["adid"] = ad_id(d)
    body = {"device_info": info, "app_info": {"package_name": d["app"]["bundle"], "app_version": "3.4.1", "sdk_key": v.token(86),
                                              "installer_name": "com.apple.AppStore" if ios else "com.android.vending",
                                              "first_install_v3_ms": v.ms(-86400)},
            "ad_unit_id": v.hex(16), "ad_format": "INTER", "request_id": v.uuid()}
    r = Req("sdk:applovin", "POST", "https://ms.applovin.com/1.0/mediate", body=gz(jdump(body).encode()), mime="application/json",
            content_encoding="gzip", ua=ua_for(d, "AppLovinSdk/13.0.1"))
    r.leak("device-id", ad_type(d), f"body:$.device_info.{'idfa' if ios else 'adid'}", "gzip")
    if ios:
        r.leak("device-id", "idfv", "body:$.device_info.idfv", "gzip")
    r.neg("api-key", "body:$.app_info.sdk_key").neg("random-hex", "body:$.ad_unit_id").neg("uuid", "body:$.request_id")
    return [r]


# ---- ironSource (LevelPlay): outcome events, {"table","data": JSON string} or base64(gzip(JSON)) body
def ironsource(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    data = {"advertisingId": ad_id(d), "advertisingIdType": "IDFA" if ios else "GAID", "deviceOS": "iOS" if ios else "Android",
            "osVersion": d["os_version"], "deviceOEM": "Apple" if ios else d["brand"], "deviceModel": d["model"],
            "bundleId": d["app"]["bundle"], "appVersion": "3.4.1", "sdkVersion": "8.4.0", "sessionId": v.hex(32),
            "mobileCarrier": d["carrier"], "tz": d["tz"], "connectionType": "wifi", "battery": 81, "jb": False,
            "events": [{"eventId": 40, "timestamp": v.ms(120), "provider": "Mediation"}]}
    if ios:
        data["idfv"] = d["ids"]["idfv"]
        body = jdump({"table": "super.dwh.mediation_events", "data": jdump(data)})
        r = Req("sdk:ironsource", "POST", "https://outcome-ssp.supersonicads.com/mediation?adUnit=3", body=body,
                mime="application/json", ua=ua_for(d, "ironSource"))
        r.leak("device-id", "idfa", "body:$.data", "json-string", inner="$.advertisingId")
        r.leak("device-id", "idfv", "body:$.data", "json-string", inner="$.idfv")
    else:
        body = base64.b64encode(gz(jdump(data).encode())).decode()
        r = Req("sdk:ironsource", "POST", "https://outcome-ssp.supersonicads.com/mediation?adUnit=3", body=body,
                mime="text/plain", ua=ua_for(d, "ironSource"))
        r.leak("device-id", "advertising_id", "body", "gzip+base64", inner="$.advertisingId")
    r.neg("random-hex", "body:$.sessionId", "32-hex session id").neg("timestamp", "body:$.events[0].timestamp")
    return [r]


# ---- Criteo publisher SDK: bid request and app events
def criteo(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    bid = {"id": v.uuid(), "publisher": {"bundleId": d["app"]["bundle"], "cpId": "B-" + v.digits(6)},
           "user": {"deviceId": ad_id(d), "deviceIdType": "IDFA" if ios else "gaid", "deviceModel": d["model"],
                    "deviceOs": d["platform"], "sdkVer": "6.1.0", "lmt": "0", "connection": "wifi"},
           "sdkVersion": "6.1.0", "profileId": 235, "slots": [{"impId": v.hex(32), "placementId": "banner-home", "sizes": ["320x50"]}]}
    b = Req("sdk:criteo", "POST", "https://bidder.criteo.com/inapp/v2", body=jdump(bid), mime="application/json", ua=ua_for(d, "Criteo"))
    b.leak("device-id", ad_type(d), "body:$.user.deviceId").neg("uuid", "body:$.id").neg("random-hex", "body:$.slots[0].impId")
    idk = "idfa" if ios else "gaid"
    e = Req("sdk:criteo", "GET", f"https://gum.criteo.com/appevent/v1/2379?" + q(
        [(idk, ad_id(d)), ("appId", d["app"]["bundle"]), ("eventType", "Launch"), ("limitedAdTracking", "0")]), ua=ua_for(d, "Criteo"))
    e.leak("device-id", ad_type(d), f"query:{idk}")
    return [b, e]


# ---- Singular: GET sdk-api-v1.singular.net/api/v1/start (k= names the kind of id in u=), signed
def singular(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    params = [("a", d["app"]["name"].lower() + "_" + v.hex(6)), ("i", d["app"]["bundle"]), ("p", "iOS" if ios else "Android"),
              ("k", "IDFV" if ios else "ANDROID_ID"), ("u", d["ids"]["idfv"] if ios else d["ids"]["android_id"]),
              ("ve", d["os_version"]), ("ma", "Apple" if ios else d["brand"]), ("mo", d["model"]), ("lc", d["locale"]),
              ("bd", "Build/UQ1A"), ("s", str(v.ms(130))), ("sdk", "Singular/v12.5.4")]
    params += [("idfa", ad_id(d))] if ios else [("aifa", ad_id(d))]
    params.append(("h", v.hex(40)))
    r = Req("sdk:singular", "GET", "https://sdk-api-v1.singular.net/api/v1/start?" + q(params), ua=ua_for(d, "Singular"))
    r.leak("device-id", "idfv" if ios else "android_id", "query:u", form="k= names the id type")
    r.leak("device-id", ad_type(d), "query:idfa" if ios else "query:aifa")
    r.neg("hmac", "query:h", "40-hex request signature").neg("timestamp", "query:s")
    return [r]


# ---- Bugsnag: session delivery
def bugsnag(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    o = d["owner"]
    body = {"notifier": {"name": "iOS Bugsnag Notifier" if ios else "Android Bugsnag Notifier", "version": "6.28.1"},
            "app": {"id": d["app"]["bundle"], "version": "3.4.1", "releaseStage": "production", "type": d["platform"]},
            "device": {"id": v.hex(40), "osName": d["platform"], "osVersion": d["os_version"], "manufacturer": "Apple" if ios else d["brand"],
                       "model": d["model"], "jailbroken": False, "locale": d["locale"]},
            "sessions": [{"id": v.uuid(), "startedAt": "2026-11-03T09:10:01.003Z",
                          "user": {"id": "8812" + v.digits(6), "email": o["email"], "name": o["name"]}}]}
    r = Req("sdk:bugsnag", "POST", "https://sessions.bugsnag.com/", body=jdump(body, ascii_only=True), mime="application/json",
            headers=[("Bugsnag-Api-Key", v.hex(32)), ("Bugsnag-Payload-Version", "1.0"), ("Bugsnag-Sent-At", "2026-11-03T09:12:50.000Z")],
            ua=ua_for(d, "Bugsnag"))
    r.leak("email", "email", "body:$.sessions[0].user.email").leak("name", "name", "body:$.sessions[0].user.name", "json-\\u-escapes")
    r.neg("install-id", "body:$.device.id", "40-hex random device id (not the UDID)").neg("api-key", "header:Bugsnag-Api-Key")
    r.neg("timestamp", "header:Bugsnag-Sent-At")
    return [r]


# ---- Microsoft App Center: logs with Install-ID
def appcenter(d):
    v = d["v"]
    ios = d["platform"] == "ios"
    dev = {"sdkName": "appcenter.ios" if ios else "appcenter.android", "sdkVersion": "5.0.4", "model": d["model"],
           "oemName": "Apple" if ios else d["brand"], "osName": "iOS" if ios else "Android", "osVersion": d["os_version"],
           "locale": d["locale"], "timeZoneOffset": d["tz_offset"], "appVersion": "3.4.1", "appBuild": "341",
           "appNamespace": d["app"]["bundle"], "carrierName": d["carrier"], "carrierCountry": d["country"].lower()}
    logs = [{"type": "startService", "services": ["Analytics", "Crashes"], "timestamp": "2026-11-03T09:12:51.000Z", "sid": v.uuid(), "device": dev},
            {"type": "event", "id": v.uuid(), "name": "checkout", "timestamp": "2026-11-03T09:12:52.000Z", "sid": v.uuid(), "device": dev,
             "properties": {"order": "ORD-" + v.digits(9), "build": v.hex(40)}}]
    r = Req("sdk:appcenter", "POST", "https://in.appcenter.ms/logs?api-version=1.0.0", body=jdump({"logs": logs}), mime="application/json",
            headers=[("Install-ID", v.uuid()), ("App-Secret", v.uuid())], ua=ua_for(d, "AppCenter"))
    r.neg("install-id", "header:Install-ID").neg("uuid", "header:App-Secret").neg("order-id", "body:$.logs[1].properties.order")
    r.neg("build-hash", "body:$.logs[1].properties.build")
    return [r]


# ---------------------------------------------------------------- first-party API styles
def first_party_rest(d):
    v = d["v"]
    app = d["app"]
    ios = d["platform"] == "ios"
    vid, vtype = vendor_id(d)
    out = []
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    # coordinates in the path
    lat, lon = near(d, 0.0010, 0.0011, 4)
    r = Req("app:rest", "GET", f"https://{app['host']}/v3/forecast/{lat},{lon}?units=metric&lang={d['lang']}", ua=ua,
            headers=[("If-None-Match", f'W/"{v.hex(16)}"'), ("X-Build", v.hex(40))])
    out.append(r.leak("location", "coordinates", "url", form="dp4 path segment lat,lng").neg("etag", "header:If-None-Match")
               .neg("build-hash", "header:X-Build"))
    # GeoJSON-ish ll in lng,lat order with %2C, hex-of-ASCII device header
    lat, lon = near(d, -0.0008, 0.0006, 5)
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/nearby?ll={lon}%2C{lat}&radius=500",
            headers=[("X-Device", vid.encode().hex())], ua=ua)
    out.append(r.leak("location", "coordinates", "query:ll", "url", form="dp5 lng,lat order (%2C)")
               .leak("device-id", vtype, "header:X-Device", "hex", form="hex of the ASCII text"))
    # semicolon, pipe, space and slash separators; hemisphere letters
    lat, lon = near(d, 0.0003, -0.0007, 5)
    hlat = f"{abs(lat)}{'N' if lat >= 0 else 'S'}"
    hlon = f"{abs(lon)}{'E' if lon >= 0 else 'W'}"
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/tiles?pos={quote(hlat + ';' + hlon, safe='')}&z=16", ua=ua)
    out.append(r.leak("location", "coordinates", "query:pos", "url", form="dp5 hemisphere letters after, ';'"))
    lat, lon = near(d, 0.0006, 0.0004, 6)
    r = Req("app:rest", "GET", f"https://{app['host']}/v2/stops?near={lat}|{lon}&limit=5", ua=ua)
    out.append(r.leak("location", "coordinates", "query:near", form="dp6 '|' separator"))
    lat, lon = near(d, -0.0002, 0.0009, 6)
    r = Req("app:rest", "GET", f"https://{app['host']}/v2/geo?gps={quote(f'{lat} {lon}', safe='')}", ua=ua)
    out.append(r.leak("location", "coordinates", "query:gps", "url", form="dp6 space separator"))
    lat, lon = near(d, 0.0004, 0.0003, 4)
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/map/{lat}/{lon}/16.png", ua=ua, response=("image/png", b""))
    out.append(r.leak("location", "coordinates", "url", form="dp4 path segments lat/lon"))
    # DMS text
    lat, lon = near(d, 0.0005, -0.0005, 6)
    a, b = dms(lat, "N", "S"), dms(lon, "E", "W")
    text = f"{a[0]}°{a[1]}'{a[2]:.1f}\"{a[3]} {b[0]}°{b[1]}'{b[2]:.1f}\"{b[3]}"
    r = Req("app:rest", "POST", f"https://{app['host']}/v1/reports", body=jdump({"kind": "pothole", "where": text, "note": "deep"}),
            mime="application/json", ua=ua)
    out.append(r.leak("location", "coordinates", "body:$.where", form="degrees-minutes-seconds with hemisphere"))
    # E6 integers
    lat, lon = near(d, -0.0006, -0.0003, 6)
    r = Req("app:rest", "POST", f"https://{app['host']}/v1/checkin", body=jdump(
        {"lat_e6": int(round(lat * 1e6)), "lng_e6": int(round(lon * 1e6)), "acc": 8, "ts": v.ms(140)}), mime="application/json", ua=ua)
    out.append(r.leak("location", "coordinates", "body:$.lat_e6,lng_e6", form="E6 integers").neg("timestamp", "body:$.ts"))
    # GeoJSON point [lng, lat]
    lat, lon = near(d, 0.0007, 0.0007, 6)
    far = d["far"]
    r = Req("app:rest", "POST", f"https://{app['host']}/v1/rides", body=jdump(
        {"pickup": {"type": "Point", "coordinates": [lon, lat]},
         "dropoff": {"type": "Point", "coordinates": [far[1], far[0]]}, "order": v.luhn(16)}), mime="application/json", ua=ua)
    out.append(r.leak("location", "coordinates", "body:$.pickup.coordinates", form="GeoJSON [lng, lat]")
               .neg("far-coordinates", "body:$.dropoff.coordinates", "destination in another city").neg("luhn-order-id", "body:$.order"))
    # only far-away and coarse places: no location leak
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/search?lat={far[0]}&lng={far[1]}&q=hotel", ua=ua)
    out.append(r.neg("far-coordinates", "query:lat,lng", "searched city"))
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/region?lat={round(d['loc'][0], 1)}&lng={round(d['loc'][1], 1)}", ua=ua)
    out.append(r.neg("coarse-coordinates", "query:lat,lng", "1 decimal"))
    # JWT whose payload (base64url JSON) carries the device id
    header = b64url(jdump({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(jdump({"sub": "8812" + v.digits(6), "did": vid, "iat": v.ms(0) // 1000, "exp": v.ms(3600) // 1000}).encode())
    jwt = f"{header}.{payload}.{b64url(hashlib.sha256(payload.encode()).digest())}"
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/me/feed?page=2", headers=[("Authorization", "Bearer " + jwt)], ua=ua)
    out.append(r.leak("device-id", vtype, "header:Authorization", "json+base64url", inner="JWT payload $.did"))
    # device id in a cookie, base64url of the raw text
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/config",
            headers=[("Cookie", f"lang={d['lang']}; dvc={b64url(vid.encode())}; theme=dark")], ua=ua)
    out.append(r.leak("device-id", vtype, "cookie:dvc", "base64url"))
    if d["platform"] == "android":
        r = Req("app:rest", "POST", f"https://{app['host']}/v1/device/register", body=jdump(
            {"imei": d["ids"]["imei"], "serial": d["ids"]["serial"], "wifi_mac": d["ids"]["mac"][0].upper(), "placeholder_id": ANDROID_ID_EMULATOR,
             "app_build": v.hex(40)}), mime="application/json", ua=ua)
        out.append(r.leak("device-id", "imei", "body:$.imei").leak("device-id", "serial", "body:$.serial")
                   .leak("device-id", "mac", "body:$.wifi_mac", form="upper case").neg("placeholder-id", "body:$.placeholder_id", "the shared emulator Android ID")
                   .neg("build-hash", "body:$.app_build"))
    else:
        r = Req("app:rest", "POST", f"https://{app['host']}/v1/device/register", body=jdump(
            {"udid": d["ids"]["udid"].upper(), "wifi": IOS_MAC_PLACEHOLDER, "idfa": IDFA_ZEROS, "app_build": v.hex(40)}),
            mime="application/json", ua=ua)
        out.append(r.leak("device-id", "udid", "body:$.udid", form="upper case").neg("placeholder-mac", "body:$.wifi", "iOS placeholder MAC")
                   .neg("idfa-zeros", "body:$.idfa").neg("build-hash", "body:$.app_build"))
    # clean requests full of look-alikes
    r = Req("app:rest", "GET", f"https://{app['host']}/v1/orders/{v.luhn(15)}?ts={v.ms(150)}",
            headers=[("X-Request-ID", v.uuid()), ("If-None-Match", f'"{v.hex(32)}"')], ua=ua)
    out.append(r.neg("luhn-order-id", "url").neg("timestamp", "query:ts").neg("uuid", "header:X-Request-ID").neg("etag", "header:If-None-Match"))
    # the user writes to the app's support: the support address and hotline are the app's own
    r = Req("app:rest", "POST", f"https://{app['host']}/v1/support/tickets", body=jdump(
        {"to": app["support"], "callback_hotline": app["hotline"], "subject": "Refund", "body": "Please call me back.",
         "attachment_sha1": v.hex(40)}), mime="application/json", ua=ua)
    out.append(r.neg("company-email", "body:$.to").neg("business-phone", "body:$.callback_hotline").neg("random-hex", "body:$.attachment_sha1"))
    # someone else's details: a scanned business card
    r = Req("app:rest", "POST", f"https://{app['host']}/v1/cards/scan", body=jdump(
        {"ocr": {"name": "Dr. Ingrid Halvorsen", "email": "i.halvorsen@example-clinic.example", "phone": "+47 22 55 01 23",
                 "company": "Nordlys Klinikk"}, "image_id": v.uuid()}), mime="application/json", ua=ua)
    out.append(r.neg("someone-else", "body:$.ocr", "a scanned business card: not the owner's, not the address book"))
    return out


def first_party_identity(d):
    """Phone, e-mail, name and hash families in first-party calls."""
    v = d["v"]
    app = d["app"]
    o = d["owner"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    out = []
    # 00 prefix and MSISDN-style header
    r = Req("app:rest-identity", "POST", f"https://{app['host']}/v1/auth/otp", body=form_body([("phone", "00" + e164_digits(d)), ("channel", "sms")]),
            mime="application/x-www-form-urlencoded", headers=[("X-MSISDN", e164_digits(d))], ua=ua)
    out.append(r.leak("phone-number", "phone", "form:phone", form="00 prefix").leak("phone-number", "phone", "header:X-MSISDN", form="e164 without +"))
    # national format, e-mail with a raw + in the query (owner of ios-us has a +tag address)
    r = Req("app:rest-identity", "GET", f"https://{app['host']}/v1/newsletter/subscribe?email={o['email']}&tel={quote(o['national'], safe='')}", ua=ua)
    out.append(r.leak("email", "email", "query:email", form="raw '+' in the query" if "+" in o["email"] else "plain")
               .leak("phone-number", "phone", "query:tel", "url", form="national"))
    # hashes of normalised values: md5 upper, sha1, sha256 base64, truncated sha256 prefix
    email_n = o["email"].strip().lower()
    r = Req("app:rest-identity", "POST", f"https://{app['host']}/v1/match", body=jdump(
        {"e_md5": md5(email_n).upper(), "e_sha1": sha1(email_n), "p_sha256_b64": sha256_b64(o["e164"]),
         "p_prefix": sha256(e164_digits(d))[:16], "nonce": v.hex(32)}), mime="application/json", ua=ua)
    out.append(r.leak("email", "email", "body:$.e_md5", "md5", form="lowercase-trim, upper hex")
               .leak("email", "email", "body:$.e_sha1", "sha1", form="lowercase-trim")
               .leak("phone-number", "phone", "body:$.p_sha256_b64", "sha256+base64", form="e164")
               .leak("phone-number", "phone", "body:$.p_prefix", "sha256 truncated 16", form="e164 digits without +")
               .neg("random-hex", "body:$.nonce"))
    r = Req("app:rest-identity", "GET", f"https://{app['host']}/v1/lookup?h={sha256(national_digits(d))}", ua=ua)
    out.append(r.leak("phone-number", "phone", "query:h", "sha256", form="national digits"))
    return out


def graphql(d):
    v = d["v"]
    app = d["app"]
    o = d["owner"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "apollo-ios/1.15" if ios else "apollo-android/4.0")
    mut = ("mutation UpdateProfile($input: ProfileInput!) { updateProfile(input: $input) { id firstName lastName } }")
    r = Req("app:graphql", "POST", f"https://{app['host']}/graphql", body=jdump(
        {"operationName": "UpdateProfile", "query": mut,
         "variables": {"input": {"firstName": o["first"].upper(), "lastName": o["last"].upper(), "phone": o["national"],
                                 "contactEmail": o["email"].upper()}}}, ascii_only=True),
        headers=[("apollographql-client-name", d["app"]["name"]), ("X-APOLLO-OPERATION-ID", v.hex(64))], mime="application/json", ua=ua)
    r.leak("name", "name", "body:$.variables.input.firstName,lastName", "json-\\u-escapes", form="split first/last, upper case")
    r.leak("phone-number", "phone", "body:$.variables.input.phone", form="national")
    r.leak("email", "email", "body:$.variables.input.contactEmail", form="uppercase")
    r.neg("build-hash", "header:X-APOLLO-OPERATION-ID", "persisted query sha256")
    lat, lon = near(d, 0.0009, -0.0011, 5)
    q2 = "query Nearby($near: GeoPointInput!) { places(near: $near, first: 10) { edges { node { id name } } } }"
    # automatic persisted queries: GET with the variables as JSON in the query string
    n = Req("app:graphql", "GET", f"https://{app['host']}/graphql?" + q([
        ("operationName", "Nearby"), ("variables", jdump({"near": {"lat": lat, "lng": lon}})),
        ("extensions", jdump({"persistedQuery": {"version": 1, "sha256Hash": v.hex(64)}}))]), ua=ua)
    n.leak("location", "coordinates", "query:variables", "json-string+url", form="dp5 fields", inner="$.near.lat,lng")
    n.neg("build-hash", "query:extensions", "persisted query hash")
    p = Req("app:graphql", "POST", f"https://gql.{app['host'].split('.', 1)[1]}/graphql", body=jdump(
        [{"operationName": "Me", "query": "query Me($deviceId: ID!) { me(deviceId: $deviceId) { id plan } }",
          "variables": {"deviceId": vendor_id(d)[0]}}]), mime="application/json", ua=ua)
    p.leak("device-id", vendor_id(d)[1], "body:$[0].variables.deviceId", form="batched operations")
    return [r, n, p]


def jsonrpc(d):
    v = d["v"]
    app = d["app"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    contacts = [{"displayName": c["name"], "phoneNumbers": [{"label": "mobile", "value": p} for p in c["phones"]],
                 "emailAddresses": c["emails"]} for c in d["contacts"]]
    r = Req("app:jsonrpc", "POST", f"https://rpc.{app['host'].split('.', 1)[1]}/rpc/contacts.sync", body=jdump(
        {"jsonrpc": "2.0", "method": "contacts.sync", "params": {"contacts": contacts, "cursor": v.hex(16)}, "id": 7}),
        mime="application/json", ua=ua)
    r.leak("contacts", "contact-name", "body:$.params.contacts[*].displayName")
    r.leak("contacts", "contact-phone", "body:$.params.contacts[*].phoneNumbers[*].value")
    r.leak("contacts", "contact-email", "body:$.params.contacts[*].emailAddresses[*]")
    # hashed discovery list: sha256 of E.164 digits, truncated to 20 hex, plus decoys of unrelated numbers
    hashes = []
    for c in d["contacts"]:
        for p in c["phones"]:
            digits = "".join(ch for ch in p if ch.isdigit())
            if not p.startswith("+"):
                digits = CALLING_CODES[d["region"]] + digits.lstrip("0")
            hashes.append(sha256(digits)[:20])
    h = Req("app:jsonrpc", "POST", f"https://rpc.{app['host'].split('.', 1)[1]}/rpc/friends.discover", body=jdump(
        {"jsonrpc": "2.0", "method": "friends.discover", "params": {"prefixes": hashes, "algo": "sha256-20"}, "id": 8}),
        mime="application/json", ua=ua)
    h.leak("contacts", "contact-phone", "body:$.params.prefixes[*]", "sha256 truncated 20", form="e164 digits without +")
    s = Req("app:jsonrpc", "POST", f"https://rpc.{app['host'].split('.', 1)[1]}/rpc/status.get", body=jdump(
        {"jsonrpc": "2.0", "method": "status.get", "params": {"since": v.ms(160), "etag": v.hex(40)}, "id": 9}), mime="application/json", ua=ua)
    s.neg("timestamp", "body:$.params.since").neg("etag", "body:$.params.etag")
    return [r, h, s]


def contact_uploads(d):
    """Address-book uploads in form, multipart (vCard) and GraphQL styles."""
    v = d["v"]
    app = d["app"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    out = []
    phones = [p for c in d["contacts"] for p in c["phones"]]
    r = Req("app:contacts", "POST", f"https://{app['host']}/v1/invites", body=form_body(
        [("phones[]", p) for p in phones] + [("message", "Join me on " + app["name"]), ("ref", v.hex(12))]),
        mime="application/x-www-form-urlencoded", ua=ua)
    out.append(r.leak("contacts", "contact-phone", "form:phones[]", form="as stored (international and national)"))
    boundary = "----okhttp" + v.hex(24)
    vcf = "".join(f"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:{c['name']}\r\n" + "".join(f"TEL;TYPE=CELL:{p}\r\n" for p in c["phones"])
                  + "".join(f"EMAIL:{e}\r\n" for e in c["emails"]) + "END:VCARD\r\n" for c in d["contacts"])
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"book\"; filename=\"contacts.vcf\"\r\n"
            f"Content-Type: text/vcard\r\n\r\n{vcf}\r\n--{boundary}--\r\n")
    r = Req("app:contacts", "POST", f"https://{app['host']}/v1/addressbook/import", body=body,
            mime=f"multipart/form-data; boundary={boundary}", ua=ua)
    out.append(r.leak("contacts", "contact-name", "multipart:book", form="vCard FN")
               .leak("contacts", "contact-phone", "multipart:book", form="vCard TEL"))
    emails = [e for c in d["contacts"] for e in c["emails"]]
    mut = "mutation Invite($hashes: [String!]!) { inviteByEmailHash(hashes: $hashes) { matched } }"
    r = Req("app:contacts", "POST", f"https://{app['host']}/graphql/invite", body=jdump(
        {"operationName": "Invite", "query": mut, "variables": {"hashes": [sha256(e.strip().lower()) for e in emails]
                                                                           + [sha256("someone@example.invalid")]}}),
        mime="application/json", ua=ua)
    out.append(r.leak("contacts", "contact-email", "body:$.variables.hashes[*]", "sha256", form="lowercase-trim"))
    return out


def form_style(d):
    v = d["v"]
    app = d["app"]
    o = d["owner"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    lat, lon = near(d, -0.0004, 0.0002, 6)
    r = Req("app:form", "POST", f"https://{app['host']}/account/register", body=form_body(
        [("first_name", fold(o["first"]).upper()), ("last_name", fold(o["last"]).upper()), ("email", "  " + o["email"].upper() + " "),
         ("mobile", o["display"]), ("geo", f"{lat},{lon}"), ("csrf", v.hex(40)), ("accept_tos", "1")]),
        mime="application/x-www-form-urlencoded", ua=ua)
    r.leak("name", "name", "form:first_name,last_name", form="upper case, accents folded")
    r.leak("email", "email", "form:email", form="upper case, untrimmed")
    r.leak("phone-number", "phone", "form:mobile", form="international display")
    r.leak("location", "coordinates", "form:geo", form="dp6 'lat,lng'")
    r.neg("csrf-token", "form:csrf")
    return [r]


def exif_jpeg(lat, lon, little=False):
    """A minimal JPEG with an Exif APP1 carrying a GPS IFD (rationals, with Ref fields), big-endian TIFF
    (`MM`) unless `little` (`II`, as most phone cameras write it)."""
    o = "<" if little else ">"

    def rationals(x):
        x = abs(x)
        deg = int(x)
        minutes = int((x - deg) * 60)
        sec100 = int(round((x - deg - minutes / 60) * 3600 * 100))
        return struct.pack(o + "IIIIII", deg, 1, minutes, 1, sec100, 100)
    entries = [(1, 2, 2, (b"N" if lat >= 0 else b"S") + b"\x00\x00\x00"), (2, 5, 3, rationals(lat)),
               (3, 2, 2, (b"E" if lon >= 0 else b"W") + b"\x00\x00\x00"), (4, 5, 3, rationals(lon))]
    ifd0_offset = 8
    ifd0 = struct.pack(o + "H", 1)
    gps_offset = ifd0_offset + 2 + 12 + 4
    ifd0 += struct.pack(o + "HHII", 0x8825, 4, 1, gps_offset) + struct.pack(o + "I", 0)
    gps_size = 2 + 12 * len(entries) + 4
    data_offset = gps_offset + gps_size
    gps, extra = struct.pack(o + "H", len(entries)), b""
    for tag, typ, count, value in entries:
        if len(value) <= 4:
            gps += struct.pack(o + "HHI", tag, typ, count) + value[:4].ljust(4, b"\x00")
        else:
            gps += struct.pack(o + "HHII", tag, typ, count, data_offset + len(extra))
            extra += value
    gps += struct.pack(o + "I", 0)
    tiff = (b"II\x2a\x00" if little else b"MM\x00\x2a") + struct.pack(o + "I", ifd0_offset) + ifd0 + gps + extra
    app1 = b"Exif\x00\x00" + tiff
    return (b"\xff\xd8" + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
            + b"\xff\xdb\x00\x43\x00" + bytes(range(1, 65)) + b"\xff\xd9")


def multipart_style(d):
    v = d["v"]
    app = d["app"]
    o = d["owner"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    lat, lon = near(d, 0.0003, 0.0005, 6)
    boundary = "Boundary-" + v.uuid(upper=True)
    parts = [(b'Content-Disposition: form-data; name="caption"\r\n\r\n', "Harbour at dawn".encode()),
             (b'Content-Disposition: form-data; name="author_email"\r\n\r\n', o["email"].encode()),
             (b'Content-Disposition: form-data; name="photo"; filename="IMG_0412.jpg"\r\nContent-Type: image/jpeg\r\n\r\n', exif_jpeg(lat, lon))]
    body = b"".join(b"--" + boundary.encode() + b"\r\n" + h + p + b"\r\n" for h, p in parts) + b"--" + boundary.encode() + b"--\r\n"
    r = Req("app:multipart", "POST", f"https://{app['host']}/v1/photos", body=body, mime=f"multipart/form-data; boundary={boundary}", ua=ua)
    r.leak("email", "email", "multipart:author_email")
    r.leak("location", "coordinates", "multipart:photo", "exif-gps", form="EXIF GPS rationals with Ref fields in a JPEG")
    return [r]


# ---- first-party requests for the encoding families the SDKs above do not show (issue 15, point 2)
def encoding_families(d):
    v = d["v"]
    app = d["app"]
    o = d["owner"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    vid, vtype = vendor_id(d)
    far = d["far"]
    out = []
    # EXIF GPS in a raw image body, little-endian TIFF (`II`)
    lat, lon = near(d, -0.0004, 0.0006, 6)
    r = Req("app:families", "PUT", f"https://{app['host']}/v1/me/avatar", body=exif_jpeg(lat, lon, little=True), mime="image/jpeg", ua=ua)
    out.append(r.leak("location", "coordinates", "body", "exif-gps", form="EXIF GPS, little-endian TIFF, raw image/jpeg body"))
    # a photo taken in another city (imported from the gallery): not where the device is
    r = Req("app:families", "POST", f"https://{app['host']}/v1/gallery/import", body=exif_jpeg(far[0], far[1]), mime="image/jpeg", ua=ua)
    out.append(r.neg("far-coordinates", "body", "EXIF GPS of a photo taken in another city"))
    # hemisphere letters before the numbers, space separator
    lat, lon = near(d, 0.0008, -0.0002, 5)
    hl = f"{'N' if lat >= 0 else 'S'}{abs(lat)} {'E' if lon >= 0 else 'W'}{abs(lon)}"
    r = Req("app:families", "GET", f"https://{app['host']}/v1/weather?at={quote(hl, safe='')}&units=metric", ua=ua)
    out.append(r.leak("location", "coordinates", "query:at", "url", form="hemisphere letters before, space"))
    # degrees-minutes-seconds with prime signs, raw UTF-8 in JSON (no escape anywhere)
    lat, lon = near(d, -0.0007, -0.0004, 6)
    a, b = dms(lat, "N", "S"), dms(lon, "E", "W")
    far_a, far_b = dms(far[0], "N", "S"), dms(far[1], "E", "W")
    r = Req("app:families", "POST", f"https://{app['host']}/v1/sightings", body=jdump(
        {"species": "heron", "pos": f"{a[0]}°{a[1]}′{a[2]:.2f}″{a[3]}, {b[0]}°{b[1]}′{b[2]:.2f}″{b[3]}",
         "reported_from": f"{far_a[0]}°{far_a[1]}′{far_a[2]:.1f}″{far_a[3]} {far_b[0]}°{far_b[1]}′{far_b[2]:.1f}″{far_b[3]}"}),
        mime="application/json", ua=ua)
    out.append(r.leak("location", "coordinates", "body:$.pos", form="DMS with prime signs, raw UTF-8")
               .neg("far-coordinates", "body:$.reported_from", "DMS of another city"))
    # a binary telemetry record: Java writeUTF strings, then float64 little-endian lat/lon
    lat, lon = near(d, 0.0002, 0.0003, 6)
    body = (struct.pack(">HI", 3, 7) + write_utf(app["bundle"]) + write_utf(vid) + struct.pack(">q", v.ms(200))
            + struct.pack("<dd", lat, lon) + struct.pack("<f", 12.5) + bytes(v.rng.getrandbits(8) for _ in range(16)))
    r = Req("app:families", "POST", f"https://{app['host']}/v1/telemetry/bin", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.leak("device-id", vtype, "body", "writeUTF").leak("location", "coordinates", "body", "float64 LE")
               .neg("timestamp", "body", "int64 milliseconds").neg("random-bytes", "body", "trailing MAC"))
    # float32 big-endian pair
    lat, lon = near(d, -0.0003, -0.0006, 4)
    body = b"\x02\x01" + struct.pack(">ff", lat, lon) + struct.pack(">I", v.ms(210) // 1000) + bytes(v.rng.getrandbits(8) for _ in range(12))
    r = Req("app:families", "POST", f"https://{app['host']}/v1/telemetry/fix", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.leak("location", "coordinates", "body", "float32 BE").neg("timestamp", "body", "uint32 seconds"))
    # a binary record with only someone else's place and a random install id
    body = (struct.pack(">HI", 3, 8) + write_utf(v.uuid()) + struct.pack(">dd", far[0], far[1])
            + bytes(v.rng.getrandbits(8) for _ in range(32)))
    r = Req("app:families", "POST", f"https://{app['host']}/v1/telemetry/route", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("far-coordinates", "body", "float64 BE destination in another city").neg("install-id", "body", "random UUID (writeUTF)")
               .neg("random-bytes", "body"))
    # truncated hashes: MD5 of the e-mail cut to 16 hex, upper case; the app's support address likewise (not the user's)
    eh = md5(o["email"].lower())[:16].upper()
    sh = sha256(app["support"])[:20]
    r = Req("app:families", "GET", f"https://{app['host']}/v1/match?hashed_email={eh}&support={sh}&v=2", ua=ua)
    out.append(r.leak("email", "email", "query:hashed_email", "md5", form="first 16 hex, upper case")
               .neg("support-email", "query:support", "truncated SHA-256 of the app's own support address"))
    # prefixed identifiers: the vendor id glued to a prefix, without dashes; a build tag glued likewise
    glued = "ID_" + vid.replace("-", "").lower()
    r = Req("app:families", "POST", f"https://{app['host']}/v1/session", body=jdump(
        {"device_id": glued, "release": "REL_" + v.hex(40), "seq": 4}), mime="application/json", ua=ua)
    out.append(r.leak("device-id", vtype, "body:$.device_id", "prefix", form="ID_ + id without dashes")
               .neg("build-hash", "body:$.release", "REL_ + build hash"))
    return out


# ---- binary bodies that hold no position and no identifier (issue 15, point 3: hard negatives for the binary families)
def binary_negatives(d):
    v = d["v"]
    app = d["app"]
    ios = d["platform"] == "ios"
    ua = ua_for(d, "CFNetwork/1568" if ios else "okhttp/4.12.0")
    o = "<" if ios else ">"
    out = []
    # motion samples right after a 6-byte header: accelerometer, gyroscope, magnetometer as float32 (every other one
    # rounded to 3 decimals, as some SDKs do to save space), then the sample's interval in milliseconds
    body = struct.pack(o + "HI", 4, v.ms(300) // 1000)
    for k in range(24):
        g = v.rng.gauss
        values = [g(0, 3), g(0, 3), 9.81 + g(0, 1), g(0, .5), g(0, .5), g(0, .5), g(20, 30), g(-10, 30), g(40, 20)]
        if k % 2:
            values = [round(x, 3) for x in values]
        body += struct.pack(o + "9fH", *values, 20)
    r = Req("app:binary", "POST", f"https://{app['host']}/v1/motion/batch", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("sensor-readings", "body", "float32 accelerometer/gyroscope/magnetometer samples"))
    # the same three axes as float64 rounded to 4 decimals: a series of numbers written like degrees
    body = struct.pack(o + "H", 9) + b"".join(struct.pack(o + "d", round(v.rng.gauss(15, 25), 4)) for _ in range(30))
    r = Req("app:binary", "POST", f"https://{app['host']}/v1/motion/calibration", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("sensor-readings", "body", "float64 series, 4 decimals"))
    # an end-to-end encrypted sync blob: random bytes
    body = bytes(v.rng.getrandbits(8) for _ in range(768))
    r = Req("app:binary", "PUT", f"https://{app['host']}/v1/sync/blob", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("random-bytes", "body", "encrypted payload"))
    # a log file compressed with raw deflate (no gzip or zlib header to undo it by)
    lines = "".join(f"{i:05d} I/App: frame {v.rng.randint(10, 99)} ms, cache {v.rng.randint(0, 512)} KiB\n" for i in range(300))
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(lines.encode()) + c.flush()
    r = Req("app:binary", "POST", f"https://{app['host']}/v1/logs/upload", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("compressed-data", "body", "raw deflate"))
    # a screenshot attached to feedback: PNG (IHDR, zlib IDAT of noisy pixels, IEND)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    pixels = b"".join(b"\x00" + bytes(v.rng.getrandbits(6) for _ in range(96)) for _ in range(32))
    body = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(pixels)) + chunk(b"IEND", b""))
    r = Req("app:binary", "POST", f"https://{app['host']}/v1/feedback/screenshot", body=body, mime="image/png", ua=ua)
    out.append(r.neg("image", "body", "PNG screenshot"))
    # timestamps of a batch of app events: int64 milliseconds and uint32 seconds
    body = b"".join(struct.pack(o + "qI", v.ms(310 + 7 * i), v.ms(310 + 7 * i) // 1000) for i in range(20))
    r = Req("app:binary", "POST", f"https://{app['host']}/v1/events/times", body=body, mime="application/octet-stream", ua=ua)
    out.append(r.neg("timestamp", "body", "int64 ms and uint32 s"))
    return out


SDKS = [firebase_analytics, crashlytics, admob, meta, adjust, appsflyer, branch, kochava, amplitude, mixpanel, segment, braze,
        onesignal, clevertap, moengage, flurry, sentry, datadog, newrelic, unity_ads, applovin, ironsource, criteo, singular,
        bugsnag, appcenter, first_party_rest, first_party_identity, graphql, jsonrpc, contact_uploads, form_style, multipart_style,
        encoding_families, binary_negatives]


# ---------------------------------------------------------------- HAR and labels
def iso(when):
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def har_entry(r, when):
    parts = urlsplit(r.url)
    headers = [("Host", parts.netloc), ("User-Agent", r.ua or "okhttp/4.12.0"), ("Accept", "*/*"),
               ("Accept-Encoding", "gzip, deflate, br")] + r.headers
    request = {"method": r.method, "url": r.url, "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
               "headersSize": -1, "bodySize": len(r.body)}
    if parts.query:
        request["queryString"] = [{"name": unquote(k), "value": unquote(val)}
                                  for k, _, val in (p.partition("=") for p in parts.query.split("&"))]
    if r.body:
        headers.append(("Content-Type", r.mime))
        if r.content_encoding:
            headers.append(("Content-Encoding", r.content_encoding))
        headers.append(("Content-Length", str(len(r.body))))
        try:
            if r.content_encoding:
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "encoded")
            text = r.body.decode("utf-8")
            request["postData"] = {"mimeType": r.mime, "text": text}
            if r.mime.startswith("application/x-www-form-urlencoded"):
                request["postData"]["params"] = [{"name": k, "value": val} for k, val in parse_qsl(text, keep_blank_values=True)]
        except UnicodeDecodeError:
            request["postData"] = {"mimeType": r.mime, "text": base64.b64encode(r.body).decode(), "encoding": "base64"}
    request["headers"] = [{"name": k, "value": val} for k, val in headers]
    mime, rbody = r.response
    response = {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": [{"name": "Content-Type", "value": mime}, {"name": "Content-Length", "value": str(len(rbody))}],
                "content": {"size": len(rbody), "mimeType": mime, "text": rbody.decode()}, "redirectURL": "",
                "headersSize": -1, "bodySize": len(rbody)}
    return {"startedDateTime": iso(when), "time": 61.0, "request": request, "response": response, "cache": {},
            "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 1.0, "wait": 55.0, "receive": 5.0}}


def norm_url(url):
    p = urlsplit(url)
    host = p.hostname.lower()
    port = p.port
    netloc = host if port in (None, 443 if p.scheme == "https" else 80) else f"{host}:{port}"
    return f"{p.scheme.lower()}://{netloc}{p.path or '/'}" + (f"?{p.query}" if p.query else "")


def build():
    files = {}
    all_labels = []
    summary = {"devices": [], "requests": 0}
    for d in DEVICES:
        requests = []
        for make in SDKS:
            requests += make(d)
        entries, labels, seen = [], [], set()
        for i, r in enumerate(requests):
            when = START + timedelta(seconds=2 * i, milliseconds=137 * i % 1000)
            url = norm_url(r.url)
            key = f"{r.method} {url}"
            assert key not in seen, f"duplicate request key {key}"
            seen.add(key)
            entries.append(har_entry(r, when))
            cats = sorted({leak["category"] for leak in r.leaks})
            fmt = []
            if r.body:
                fmt.append(r.mime.split(";")[0])
            if r.content_encoding:
                fmt.append(r.content_encoding)
            labels.append({"id": f"{d['key']}-{i + 1:04d}", "device": d["key"], "app": r.sdk, "method": r.method, "url": url,
                           "key": key, "transport": urlsplit(url).scheme, "categories": cats, "leaks": r.leaks,
                           "hard_negatives": r.negatives, "format": fmt})
        har = {"log": {"version": "1.2", "creator": {"name": "mouchard-sdk-corpus-generator", "version": "1"},
                       "comment": f"SDK corpus, fictional device {d['key']} (see README.md)", "pages": [], "entries": entries}}
        meta_ = {"corpus": "sdk", "device": d["key"], "device_profile": f"{d['key']}/device.json",
                 "location_rule": "A coordinate pair is a location leak when both numbers carry at least 2 decimals and the point "
                                  "lies within 3 km of the profile location.", "key": "method + ' ' + normalized absolute URL"}
        files[f"{d['key']}/device.json"] = json.dumps(profile_json(d), indent=2, ensure_ascii=False) + "\n"
        files[f"{d['key']}/traffic.har"] = json.dumps(har, indent=1, ensure_ascii=False) + "\n"
        files[f"{d['key']}/labels.json"] = json.dumps(dict(meta_, requests=labels), indent=1, ensure_ascii=False) + "\n"
        all_labels += labels
    meta_ = {"corpus": "sdk", "device": "+".join(d["key"] for d in DEVICES), "device_profile": None,
             "location_rule": "A coordinate pair is a location leak when both numbers carry at least 2 decimals and the point "
                              "lies within 3 km of the profile location.", "key": "method + ' ' + normalized absolute URL"}
    files["labels.json"] = json.dumps(dict(meta_, requests=all_labels), indent=1, ensure_ascii=False) + "\n"
    return files


def main():
    check = "--check" in sys.argv[1:]
    files = build()
    stale = []
    for name, text in sorted(files.items()):
        path = os.path.join(HERE, name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    if check and stale:
        sys.exit("stale generated files: " + ", ".join(stale))
    labels = json.loads(files["labels.json"])["requests"]
    sdks = sorted({r["app"] for r in labels})
    print(f"{len(labels)} requests, {len(sdks)} SDKs/API styles, "
          f"{sum(1 for r in labels if r['categories'])} leaking, {sum(len(r['hard_negatives']) for r in labels)} hard negatives")


if __name__ == "__main__":
    main()
