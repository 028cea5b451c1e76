"""``init`` / ``providers`` / ``parse_model``: LangChain 1.5.2's keys, order, inference rules
and error messages, plus our credential errors."""

from __future__ import annotations

import warnings

import pytest

from superstep_core.llm import (
    ChatModel,
    MissingCredentialsError,
    MissingSettingError,
    UnknownProviderError,
    UnsupportedModelError,
    init,
    parse_model,
    providers,
)
from superstep_core.llm.providers import PROVIDERS
from superstep_core.llm.registry import LANGCHAIN_PROVIDERS

LANGCHAIN_1_5_KEYS = [
    "anthropic", "anthropic_bedrock", "azure_ai", "azure_openai", "baseten", "bedrock",
    "bedrock_converse", "bedrock_mantle_anthropic", "bedrock_mantle_openai", "cohere",
    "deepseek", "fireworks", "google_anthropic_vertex", "google_genai", "google_vertexai",
    "groq", "huggingface", "ibm", "langsmith", "litellm", "meta", "mistralai", "nvidia",
    "ollama", "openai", "openrouter", "perplexity", "together", "upstage", "xai",
]  # fmt: skip

FULL_ENV = {
    **{var: f"secret-{var.lower()}" for row in PROVIDERS.values() for var in row.key_env},
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "AWS_REGION": "eu-west-1",
    "WATSONX_URL": "https://eu-de.ml.cloud.ibm.com",
    "WATSONX_PROJECT_ID": "p-1",
    "GOOGLE_CLOUD_PROJECT": "g-project",
    "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.token",
    "AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com",
    "OPENAI_API_VERSION": "2024-10-21",
}
FULL_ENV.pop("WATSONX_TOKEN")

EXPECTED = {
    "anthropic": ("anthropic_messages", "https://api.anthropic.com/v1/messages"),
    "anthropic_bedrock": ("anthropic_messages", "https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/invoke"),
    "azure_ai": ("openai_chat", "https://res.openai.azure.com/openai/v1/chat/completions"),
    "azure_openai": ("openai_chat", "https://res.openai.azure.com/openai/deployments/m/chat/completions?api-version=2024-10-21"),
    "baseten": ("openai_chat", "https://inference.baseten.co/v1/chat/completions"),
    "bedrock": ("bedrock_converse", "https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/converse"),
    "bedrock_converse": ("bedrock_converse", "https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/converse"),
    "bedrock_mantle_anthropic": ("anthropic_messages", "https://bedrock-mantle.eu-west-1.api.aws/anthropic/v1/messages"),
    "bedrock_mantle_openai": ("openai_chat", "https://bedrock-mantle.eu-west-1.api.aws/v1/chat/completions"),
    "cohere": ("cohere_v2", "https://api.cohere.com/v2/chat"),
    "deepseek": ("openai_chat", "https://api.deepseek.com/v1/chat/completions"),
    "fireworks": ("openai_chat", "https://api.fireworks.ai/inference/v1/chat/completions"),
    "google_anthropic_vertex": ("anthropic_messages", "https://us-central1-aiplatform.googleapis.com/v1/projects/g-project/locations/us-central1/publishers/anthropic/models/m:rawPredict"),
    "google_genai": ("gemini", "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"),
    "google_vertexai": ("gemini", "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/g-project/locations/us-central1/publishers/google/models/m:generateContent"),
    "groq": ("openai_chat", "https://api.groq.com/openai/v1/chat/completions"),
    "huggingface": ("openai_chat", "https://router.huggingface.co/v1/chat/completions"),
    "ibm": ("watsonx_chat", "https://eu-de.ml.cloud.ibm.com/ml/v1/text/chat?version=2026-10-14"),
    "langsmith": ("openai_responses", "https://gateway.smith.langchain.com/v1/responses"),
    "litellm": ("openai_chat", "http://localhost:4000/v1/chat/completions"),
    "meta": ("openai_chat", "https://api.meta.ai/v1/chat/completions"),
    "mistralai": ("openai_chat", "https://api.mistral.ai/v1/chat/completions"),
    "nvidia": ("openai_chat", "https://integrate.api.nvidia.com/v1/chat/completions"),
    "ollama": ("openai_chat", "http://localhost:11434/v1/chat/completions"),
    "openai": ("openai_chat", "https://api.openai.com/v1/chat/completions"),
    "openrouter": ("openai_chat", "https://openrouter.ai/api/v1/chat/completions"),
    "perplexity": ("openai_chat", "https://api.perplexity.ai/chat/completions"),
    "together": ("openai_chat", "https://api.together.xyz/v1/chat/completions"),
    "upstage": ("openai_chat", "https://api.upstage.ai/v1/solar/chat/completions"),
    "xai": ("openai_chat", "https://api.x.ai/v1/chat/completions"),
    "mock": ("openai_chat", "http://mock.superstep.invalid/v1/chat/completions"),
}  # fmt: skip


def test_providers_lists_langchains_thirty_keys_in_order_then_mock() -> None:
    assert providers() == [*LANGCHAIN_1_5_KEYS, "mock"]
    assert list(LANGCHAIN_PROVIDERS) == LANGCHAIN_1_5_KEYS


@pytest.mark.parametrize("key", [*LANGCHAIN_1_5_KEYS, "mock"])
def test_init_resolves_every_key(key: str) -> None:
    model = init(f"{key}:m", env=FULL_ENV)
    assert isinstance(model, ChatModel)
    wire, url = EXPECTED[key]
    assert model.identity.provider == key
    assert model.identity.model == "m"
    assert model.identity.wire_format == wire
    assert model.spec("hi").url == url
    for secret in FULL_ENV.values():
        if secret.startswith("secret-"):
            assert secret not in repr(model)
            assert secret not in repr(model.spec("hi"))


@pytest.mark.parametrize(
    ("given", "provider", "expected"),
    [
        ("openai:gpt-4o", None, ("gpt-4o", "openai")),
        ("ollama:llama3.1:8b", None, ("llama3.1:8b", "ollama")),
        (
            "bedrock_converse:anthropic.claude-3-haiku-20240307-v1:0",
            None,
            ("anthropic.claude-3-haiku-20240307-v1:0", "bedrock_converse"),
        ),
        ("openai:ft:gpt-4o-mini:acme::abc123", None, ("ft:gpt-4o-mini:acme::abc123", "openai")),
        (
            "anthropic.claude-3-haiku-20240307-v1:0",
            None,
            ("anthropic.claude-3-haiku-20240307-v1:0", "bedrock"),
        ),
        ("GPT-4o", None, ("GPT-4o", "openai")),
        ("Claude-3", None, ("Claude-3", "anthropic")),
        ("anthropic:", None, ("", "anthropic")),
        ("gpt-4o", "Azure-OpenAI", ("gpt-4o", "azure_openai")),
        ("openai:gpt-4o", "openai", ("openai:gpt-4o", "openai")),
        ("gpt-4o", "nope", ("gpt-4o", "nope")),
        ("o100", None, ("o100", "openai")),
        ("command-r", None, ("command-r", "cohere")),
        ("accounts/fireworks/models/x", None, ("accounts/fireworks/models/x", "fireworks")),
        ("meta.llama3", None, ("meta.llama3", "bedrock")),
        ("mixtral-8x7b", None, ("mixtral-8x7b", "mistralai")),
        ("deepseek-chat", None, ("deepseek-chat", "deepseek")),
        ("grok-4", None, ("grok-4", "xai")),
        ("sonar-pro", None, ("sonar-pro", "perplexity")),
        ("solar-mini", None, ("solar-mini", "upstage")),
        ("chatgpt-4o-latest", None, ("chatgpt-4o-latest", "openai")),
        ("text-davinci-003", None, ("text-davinci-003", "openai")),
    ],
)  # fmt: skip
def test_parse_model_matches_langchain(
    given: str, provider: str | None, expected: tuple[str, str]
) -> None:
    assert parse_model(given, provider) == expected


@pytest.mark.parametrize(
    "given",
    [
        "ft:gpt-4o-mini:acme::abc123", "OpenAI:gpt-4o", "azure-openai:gpt-4o", "foo:bar",
        ":gpt-4o", "o4-mini", "gpt4", "codestral-latest", "llama3",
        "us.anthropic.claude-3-5-haiku-20241022-v1:0",
    ],
)  # fmt: skip
def test_uninferable_models_raise_langchains_error(given: str) -> None:
    with pytest.raises(ValueError, match=r"^Unable to infer model provider for model=") as caught:
        parse_model(given)
    assert isinstance(caught.value, UnsupportedModelError)
    assert ", ".join(sorted(providers())) in str(caught.value)


def test_gemini_infers_vertexai_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="google_genai"):
        assert parse_model("gemini-2.5-flash") == ("gemini-2.5-flash", "google_vertexai")


def test_unknown_provider_names_close_matches_and_every_key() -> None:
    with pytest.raises(UnknownProviderError, match=r"^Unsupported provider='anthropik'") as caught:
        init("claude-3", model_provider="anthropik")
    message = str(caught.value)
    assert "'anthropic'" in message.split("Supported")[0]
    assert "Supported model providers are: " + ", ".join(providers()) in message


def test_non_string_model_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_model(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "env_var"),
    [
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("anthropic:claude-3", "ANTHROPIC_API_KEY"),
        ("groq:llama", "GROQ_API_KEY"),
        ("google_genai:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("cohere:command-r", "COHERE_API_KEY"),
        ("mistralai:mistral-large", "MISTRAL_API_KEY"),
    ],
)
def test_missing_api_key_names_the_environment_variable(model: str, env_var: str) -> None:
    with pytest.raises(MissingCredentialsError, match=env_var):
        init(model, env={})


def test_missing_bedrock_credentials_name_both_ways_to_authenticate() -> None:
    with pytest.raises(MissingCredentialsError, match="AWS_BEARER_TOKEN_BEDROCK") as caught:
        init("bedrock:amazon.nova-pro-v1:0", env={"AWS_REGION": "us-east-1"})
    assert "AWS_ACCESS_KEY_ID" in str(caught.value)


@pytest.mark.parametrize(
    ("model", "env", "setting"),
    [
        ("bedrock:amazon.nova-pro-v1:0", {"AWS_BEARER_TOKEN_BEDROCK": "t"}, "region"),
        ("azure_openai:gpt-4o", {"AZURE_OPENAI_API_KEY": "k"}, "base_url"),
        (
            "azure_openai:gpt-4o",
            {"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": "https://x"},
            "api_version",
        ),
        ("ibm:granite", {"WATSONX_API_KEY": "k"}, "base_url"),
        ("ibm:granite", {"WATSONX_API_KEY": "k", "WATSONX_URL": "https://x"}, "project_id"),
        ("google_vertexai:gemini-2.5-flash", {}, "project"),
    ],
)  # fmt: skip
def test_missing_settings_name_the_setting(model: str, env: dict[str, str], setting: str) -> None:
    with pytest.raises(MissingSettingError, match=setting):
        init(model, env=env)


def test_ollama_and_litellm_and_mock_need_no_key() -> None:
    for key in ("ollama", "litellm", "mock"):
        model = init(f"{key}:m", env={})
        assert model.spec("hi").header("Authorization") is None


def test_ollama_host_env_moves_the_base_url() -> None:
    model = init("ollama:llama3.1:8b", env={"OLLAMA_HOST": "10.0.0.2:11434"})
    assert model.spec("hi").url == "http://10.0.0.2:11434/v1/chat/completions"


def test_responses_only_openai_models_use_the_responses_codec() -> None:
    for name in ("gpt-5-pro", "gpt-5.1-codex"):
        assert (
            init(f"openai:{name}", api_key="k", env={}).identity.wire_format == "openai_responses"
        )
    mantle = init("bedrock_mantle_openai:openai.gpt-5", api_key="k", region="us-west-2", env={})
    assert mantle.identity.wire_format == "openai_responses"
    assert mantle.spec("hi").url == "https://bedrock-mantle.us-west-2.api.aws/openai/v1/responses"


def test_google_genai_can_be_flipped_to_vertex_by_env() -> None:
    env = {
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_CLOUD_PROJECT": "p",
        "GOOGLE_CLOUD_LOCATION": "global",
    }
    model = init("google_genai:gemini-2.5-flash", api_key="ya29", env=env)
    assert model.spec("hi").url.startswith(
        "https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global/"
    )


def test_with_model_keeps_provider_and_settings() -> None:
    model = init("openai:gpt-4o", api_key="k", temperature=0.5, env={})
    other = model.with_model("gpt-4o-mini")
    assert other.identity.model == "gpt-4o-mini"
    assert other.temperature == 0.5
    assert other.spec("hi").body["model"] == "gpt-4o-mini"


def test_chat_model_is_sealed() -> None:
    with pytest.raises(TypeError, match="sealed"):

        class Custom(ChatModel):
            pass


def test_capabilities_and_identity_are_metadata() -> None:
    model = init("anthropic:claude-3", api_key="k", env={})
    assert model.capabilities.tools and model.capabilities.streaming
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.identity.wire_format == "anthropic_messages"
