"""The public names of `superstep_core.llm` are exactly the documented ones."""

from __future__ import annotations

import superstep_core.llm as llm


def test_llm_exports_exactly_the_documented_names() -> None:
    assert sorted(llm.__all__) == [
        "Capabilities", "ChatModel", "HttpRequest", "HttpxTransport", "Identity", "LLMError",
        "MissingCredentialsError", "MissingSettingError", "PermanentLLMError",
        "ProviderResponseError", "RetryableLLMError", "SDKTransport", "Transport",
        "UnknownProviderError", "UnsupportedModelError", "init", "parse_model", "providers",
    ]  # fmt: skip
    for name in llm.__all__:
        assert getattr(llm, name).__doc__, name


def test_the_llm_layer_never_imports_engine_internals_or_compat() -> None:
    import sys

    import superstep_core.llm.codecs as codecs

    for wire in codecs.WIRE_FORMATS:
        codecs.codec_for(wire)
    loaded = [m for m in sys.modules if m.startswith("superstep_core.llm")]
    assert loaded
    for module in loaded:
        source = sys.modules[module].__dict__
        for forbidden in ("superstep_compat", "superstep_core.host", "superstep_core.runtime"):
            assert not any(
                getattr(v, "__name__", "").startswith(forbidden) for v in source.values()
            ), (module, forbidden)
