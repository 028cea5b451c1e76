"""The public names of superstep_core.persistence are exactly the documented ones."""

from __future__ import annotations

import superstep_core.persistence as persistence


def test_persistence_exports_exactly_the_documented_names() -> None:
    assert sorted(persistence.__all__) == sorted(
        [
            "Codec",
            "ForeignSerializer",
            "TypeRegistry",
            "default_registry",
            "register",
            "CodecError",
            "DecodeError",
            "TooDeepError",
            "UnsupportedTypeError",
        ]
    )
    for name in persistence.__all__:
        assert getattr(persistence, name).__doc__, name
