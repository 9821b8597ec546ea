"""Small packet-building helpers used to write the expected bytes of the
example and feature STF tests.  Checksums here are computed independently of
p4forge (plain Python), so a test compares p4forge against this arithmetic.

Run nothing from here directly; the per-example `make_stf.py` scripts import it.
"""


def mac(s):
    """'00:00:00:00:01:00' -> 6 bytes."""
    return bytes(int(x, 16) for x in s.split(':'))


def ip(s):
    """'10.1.2.3' -> 4 bytes."""
    return bytes(int(x) for x in s.split('.'))


def csum16(data):
    """Internet checksum (ones' complement of the ones' complement sum)."""
    if len(data) % 2:
        data += b'\0'
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return (~total) & 0xffff


def eth(dst, src, ethertype):
    return mac(dst) + mac(src) + ethertype.to_bytes(2, 'big')


def ipv4(src, dst, payload_len, ttl=64, proto=17, ident=1, version=4, ihl=5,
         checksum=None, options=b''):
    """A 20-byte (or longer, with options) IPv4 header with a correct
    checksum unless `checksum` forces one."""
    total = 4 * ihl + payload_len
    h = bytes([(version << 4) | ihl, 0]) + total.to_bytes(2, 'big') \
        + ident.to_bytes(2, 'big') + b'\x00\x00' + bytes([ttl, proto]) \
        + b'\x00\x00' + ip(src) + ip(dst) + options
    c = csum16(h) if checksum is None else checksum
    return h[:10] + c.to_bytes(2, 'big') + h[12:]


def udp(sport, dport, payload):
    """UDP header with checksum 0 (not computed) followed by the payload."""
    return sport.to_bytes(2, 'big') + dport.to_bytes(2, 'big') \
        + (8 + len(payload)).to_bytes(2, 'big') + b'\x00\x00' + payload


def hexs(b):
    """Bytes as STF hex, grouped per 4 bytes for readability."""
    h = b.hex().upper()
    return ' '.join(h[i:i + 8] for i in range(0, len(h), 8))
