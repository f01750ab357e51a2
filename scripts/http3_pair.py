"""An HTTP/3 server and client (aioquic) on loopback, for recording QUIC with its key log.

    python3 scripts/http3_pair.py PORT CERT KEY KEYLOG REQUESTS

The server answers every request 200 with a small JSON body. The client opens one QUIC
connection per cipher suite (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384,
TLS_CHACHA20_POLY1305_SHA256) and sends the planted requests on each: an IDFA in a query, a JSON
body, a header, with a key update halfway. Both sides use QPACK with its dynamic table (aioquic's default). The client writes
its TLS secrets to KEYLOG (NSS format) and the requests it sent, `METHOD PATH` per line, to
REQUESTS. Needs the aioquic package.
"""
import asyncio
import sys

from aioquic.asyncio import connect, serve
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.tls import CipherSuite

IDFA = "6D92078A-8246-4BA4-AE5B-76104861E7DC"


class Server(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = None

    def quic_event_received(self, event):
        if self.http is None:
            self.http = H3Connection(self._quic)
        for ev in self.http.handle_event(event):
            if isinstance(ev, (HeadersReceived, DataReceived)) and ev.stream_ended:
                body = b'{"ok":true}'
                self.http.send_headers(ev.stream_id, [(b":status", b"200"), (b"content-type", b"application/json"),
                                                      (b"content-length", str(len(body)).encode())])
                self.http.send_data(ev.stream_id, body, end_stream=True)
                self.transmit()


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = H3Connection(self._quic)
        self.waiting = {}

    def quic_event_received(self, event):
        for ev in self.http.handle_event(event):
            if isinstance(ev, (HeadersReceived, DataReceived)) and ev.stream_ended and ev.stream_id in self.waiting:
                self.waiting.pop(ev.stream_id).set_result(True)

    async def request(self, authority, method, path, headers=(), body=b""):
        stream = self._quic.get_next_available_stream_id()
        fields = [(b":method", method.encode()), (b":scheme", b"https"), (b":authority", authority.encode()),
                  (b":path", path.encode()), (b"user-agent", b"mouchard-test")] + list(headers)
        self.http.send_headers(stream, fields, end_stream=not body)
        if body:
            self.http.send_data(stream, body, end_stream=True)
        done = asyncio.get_running_loop().create_future()
        self.waiting[stream] = done
        self.transmit()
        await asyncio.wait_for(done, 10)


async def main(port, cert, key, keylog, requests_path):
    server_config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    server_config.load_cert_chain(cert, key)
    server = await serve("127.0.0.1", port, configuration=server_config, create_protocol=Server)
    authority = f"localhost:{port}"
    sent = []
    with open(keylog, "a") as secrets:
        for suite in (CipherSuite.AES_128_GCM_SHA256, CipherSuite.AES_256_GCM_SHA384, CipherSuite.CHACHA20_POLY1305_SHA256):
            config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, secrets_log_file=secrets,
                                       server_name="localhost", cipher_suites=[suite])
            config.verify_mode = 0  # the test certificate is self-signed
            async with connect("127.0.0.1", port, configuration=config, create_protocol=Client) as client:
                tag = suite.name.lower()
                planted = [
                    ("GET", f"/h3/{tag}/open?advertiserId={IDFA}&t=1", [], b""),
                    ("POST", f"/h3/{tag}/events", [(b"content-type", b"application/json")],
                     ('{"device":{"ifa":"%s"}}' % IDFA).encode()),
                    ("GET", f"/h3/{tag}/config", [(b"x-idfa", IDFA.lower().encode())], b""),
                    # The same header again: the encoder refers to its dynamic table entry this time.
                    ("GET", f"/h3/{tag}/config?again=1", [(b"x-idfa", IDFA.lower().encode())], b""),
                ]
                for i, (method, path, headers, body) in enumerate(planted):
                    if i == 2:
                        # A key update (RFC 9001 §6) halfway: the rest of the connection uses the next keys.
                        client._quic.request_key_update()
                    await client.request(authority, method, path, headers, body)
                    sent.append(f"{method} {path}")
                secrets.flush()
    server.close()
    with open(requests_path, "w") as out:
        out.write("\n".join(sent) + "\n")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
