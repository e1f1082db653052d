"""QR codes for the phone join URL: SVG for the dashboard, text for the terminal."""

from __future__ import annotations

import io


def qr_svg(data: str) -> str:
    import qrcode
    import qrcode.image.svg

    image = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    buf = io.BytesIO()
    image.save(buf)
    svg = buf.getvalue().decode()
    return svg[svg.index("<svg"):]  # drop the XML prolog so it can be inlined in HTML


def qr_text(data: str) -> str:
    import qrcode

    qr = qrcode.QRCode(border=1)
    qr.add_data(data)
    qr.make(fit=True)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()
