"""wire.py — a second, independent client: stock Python gRPC (Debian's
python3-grpcio) with a tiny hand-written protobuf encoder, so tests can send
exactly the bytes they want, malformed ones included."""
import grpc


def _varint(n):
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


def message(*fields):
    """Encode (field_number, value) pairs: int -> varint, str/bytes -> length-delimited."""
    out = bytearray()
    for num, value in fields:
        if isinstance(value, bool) or isinstance(value, int):
            out += _varint(num << 3) + _varint(int(value))
        else:
            data = value.encode() if isinstance(value, str) else value
            out += _varint(num << 3 | 2) + _varint(len(data)) + data
    return bytes(out)


def packed(values):
    """A packed repeated varint field's payload (pass it as a bytes value)."""
    return b"".join(_varint(v) for v in values)


def _read_varint(buf, i):
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def fields(buf):
    """Decode a message into a list of (field_number, value)."""
    i, out = 0, []
    while i < len(buf):
        key, i = _read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _read_varint(buf, i)
        elif wt == 2:
            ln, i = _read_varint(buf, i)
            v, i = bytes(buf[i:i + ln]), i + ln
        else:
            raise ValueError(f"wire type {wt} not handled")
        out.append((num, v))
    return out


def get(buf, num, default=None):
    """The last value of field `num` (proto3: the last one wins), or default."""
    found = [v for n, v in fields(buf) if n == num]
    return found[-1] if found else default


def repeated(buf, num):
    """Every value of field `num`; packed varints are unpacked."""
    out = []
    for n, v in fields(buf):
        if n != num:
            continue
        if isinstance(v, bytes):
            i = 0
            while i < len(v):
                x, i = _read_varint(v, i)
                out.append(x)
        else:
            out.append(v)
    return out


def seat(n):
    """A SeatNumber message for seat n."""
    return message((1, n))


def seat_of(buf, num):
    """The SeatNumber in field `num`: its seat, or None when absent (an
    observer, nobody to move)."""
    box = get(buf, num)
    return None if box is None else get(box, 1, 0)


def first_message(buf, num):
    return next(v for n, v in fields(buf) if n == num)


def first_string(buf, num):
    return first_message(buf, num).decode()


class Client:
    def __init__(self, address, own_connection=False):
        """own_connection: a TCP connection of its own (gRPC otherwise shares
        one among the channels to an address)."""
        options = [("grpc.use_local_subchannel_pool", 1)] if own_connection else None
        self.channel = grpc.insecure_channel(address, options=options)

    def raw(self, method, payload, token=None, timeout=10, metadata=()):
        """Call a unary method with raw bytes; returns (code name, reply bytes or text).
        metadata: (key, value) pairs to send besides the token."""
        call = self.channel.unary_unary(method, request_serializer=None,
                                        response_deserializer=None)
        md = ([("authorization", f"Bearer {token}")] if token else []) + list(metadata) or None
        try:
            reply = call(payload, timeout=timeout, metadata=md)
            return "OK", reply
        except grpc.RpcError as e:
            return e.code().name, e.details() or ""

    def reason(self, method, payload, token=None, timeout=10, metadata=()):
        """Call a unary method expected to fail; returns (code name, the
        sungka-error-reason trailing metadata or None, details)."""
        call = self.channel.unary_unary(method, request_serializer=None,
                                        response_deserializer=None)
        md = ([("authorization", f"Bearer {token}")] if token else []) + list(metadata) or None
        try:
            call(payload, timeout=timeout, metadata=md)
            return "OK", None, ""
        except grpc.RpcError as e:
            trailing = dict(e.trailing_metadata() or ())
            return e.code().name, trailing.get("sungka-error-reason"), e.details() or ""

    def stream(self, method, payload, token=None, timeout=10):
        """Open a server stream; returns an iterator of raw reply messages
        (call .cancel() on it to stop)."""
        call = self.channel.unary_stream(method, request_serializer=None,
                                         response_deserializer=None)
        md = [("authorization", f"Bearer {token}")] if token else None
        return call(payload, timeout=timeout, metadata=md)

    def close(self):
        self.channel.close()
