"""A self-signed certificate for ``tablescore serve --https`` (phones allow the camera only on
https or localhost). Made once with the ``openssl`` command line and kept in the data folder;
no extra Python dependency."""

from __future__ import annotations

import ipaddress
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tablescore.errors import TablescoreError


class TLSError(TablescoreError):
    code = "tls_unavailable"


@dataclass(frozen=True)
class CertSettings:
    days: int = 825  # the longest validity Apple devices accept for a server certificate
    key_bits: int = 2048
    common_name: str = "tablescore"


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a phone on the LAN might use (no packet is sent)."""
    found = {"127.0.0.1"}
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            found.add(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(info[4][0])
    except OSError:
        pass
    return sorted(a for a in found if ipaddress.ip_address(a).version == 4)


def ensure_certificate(folder: Path, settings: CertSettings | None = None) -> tuple[Path, Path]:
    """``(cert.pem, key.pem)`` under ``folder``, created on first use; `TLSError` when the
    ``openssl`` command is missing or fails."""
    settings = settings or CertSettings()
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    openssl = shutil.which("openssl")
    if openssl is None:
        raise TLSError(
            "--https needs the 'openssl' command to make a certificate (apt-get install "
            f"openssl), or put your own cert.pem and key.pem in {folder}"
        )
    names = ["DNS:localhost", f"DNS:{socket.gethostname()}"]
    names += [f"IP:{a}" for a in lan_addresses()]
    cmd = [
        openssl, "req", "-x509", "-newkey", f"rsa:{settings.key_bits}", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", str(settings.days),
        "-subj", f"/CN={settings.common_name}", "-addext", "subjectAltName=" + ",".join(names),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not cert.exists():
        raise TLSError(f"openssl could not make a certificate: {done.stderr.strip()[-300:]}")
    key.chmod(0o600)
    return cert, key
