"""The pkarr codec's independent check (Tests/TransportTests/Pkarr/DNSPythonCrossCheckTests):
dnspython (.build/dnspython-venv, scripts/dnspython.sh) builds packets for the Swift decoder
and reads the packets the Swift encoder builds.

  build <zone>   print a JSON list of packets dnspython made: {"hex", "records"}
  read           read a JSON list of packet hex strings on stdin; print, for each, the
                 records dnspython decoded and the packet dnspython writes back

A record is {"name", "ttl", "type", "data"} with names absolute and without the final dot;
"data" per type: A/AAAA the address text, TXT the strings in hex, SVCB/HTTPS priority,
target and {key: value hex}, CNAME/NS/PTR the name, MX preference and exchange, anything
else the raw data in hex."""
import io
import json
import sys

import dns.message
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.rrset


def name_text(name):
    text = name.to_text(omit_final_dot=True)
    return "." if text == "" or text == "@" else text.lower()


def data_of(rdata):
    kind = dns.rdatatype.to_text(rdata.rdtype)
    if kind in ("A", "AAAA"):
        return rdata.address
    if kind == "TXT":
        return [s.hex() for s in rdata.strings]
    if kind in ("SVCB", "HTTPS"):
        params = {}
        for key, value in rdata.params.items():
            buffer = io.BytesIO()
            value.to_wire(buffer, None)
            params[str(int(key))] = buffer.getvalue().hex()
        return {"priority": rdata.priority, "target": name_text(rdata.target), "params": params}
    if kind in ("CNAME", "NS", "PTR"):
        return name_text(rdata.target)
    if kind == "MX":
        return {"preference": rdata.preference, "exchange": name_text(rdata.exchange)}
    return rdata.to_digestable().hex()


def records_of(message):
    out = []
    for rrset in message.answer:
        for rdata in rrset:
            out.append({"name": name_text(rrset.name), "ttl": rrset.ttl,
                        "type": int(rrset.rdtype), "data": data_of(rdata)})
    return out


def build(zone):
    origin = dns.name.from_text(zone)
    sets = [
        [("@", 300, "A", "127.0.0.1"), ("@", 300, "AAAA", "2001:db8::1"),
         ("_peernode", 300, "SVCB", "1 . port=9737")],
        [("_swap", 60, "TXT", '"v=swap1;dir=ln_to_onchain" "min=10000;max=1000000"'),
         ("_swap", 60, "TXT", '"second record"'),
         ("www", 3600, "CNAME", "_peernode"), ("_peernode", 3600, "SVCB", "0 " + zone + ".")],
        [("@", 120, "HTTPS", "1 . alpn=h2,h3 port=443 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::2"),
         ("deep.sub", 120, "A", "10.0.0.1"), ("sub", 120, "MX", "10 deep.sub"),
         ("sub", 120, "NS", "ns1.example.com."), ("@", 120, "TXT", '""')],
        [("@", 60, "TYPE65280", "\\# 3 010203")],
        [("@", 30, "TXT", '"' + "y" * 255 + '" "' + "z" * 100 + '"'), ("_peernode", 30, "SVCB", "2 other.example. port=1")],
    ]
    packets = []
    for records in sets:
        message = dns.message.Message(id=0)
        message.flags = 0x8400
        for owner, ttl, kind, text in records:
            name = dns.name.from_text(owner, origin) if owner != "@" else origin
            rrset = message.find_rrset(message.answer, name, dns.rdataclass.IN,
                                       dns.rdatatype.from_text(kind), create=True)
            rrset.update_ttl(ttl)
            rrset.add(dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(kind), text, origin=origin, relativize=False))
        wire = message.to_wire()
        packets.append({"hex": wire.hex(), "records": records_of(dns.message.from_wire(wire))})
    json.dump(packets, sys.stdout)


def read():
    out = []
    for text in json.load(sys.stdin):
        message = dns.message.from_wire(bytes.fromhex(text))
        out.append({"records": records_of(message), "rewritten": message.to_wire().hex(),
                    "id": message.id, "flags": message.flags})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        read()
