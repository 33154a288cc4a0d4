"""SacreBLEU's ``version``: the version of SacreBLEU's API that bleustream
implements, with bleustream's own as a PEP 440 local part
(``2.6.0+bleustream.0.2.0``).

This is what ``sacrebleu.__version__`` reads under
``bleustream.install_as_sacrebleu()``, so that version checks written for
SacreBLEU (``version.parse(sacrebleu.__version__) >= version.parse("2.0")``)
pass and a log still says what ran.  ``bleustream.__version__`` stays
bleustream's own.
"""

from __future__ import annotations

from bleustream._version import __version__ as _bleustream_version

__all__ = ["__version__", "__version_tuple__", "version", "version_tuple"]

# The SacreBLEU release whose API, numbers and signatures bleustream follows.
SACREBLEU_API = "2.6.0"

__version__ = version = f"{SACREBLEU_API}+bleustream.{_bleustream_version}"
__version_tuple__ = version_tuple = (
    *(int(part) for part in SACREBLEU_API.split(".")),
    f"bleustream.{_bleustream_version}",
)
