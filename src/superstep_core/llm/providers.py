"""The provider table: one row per key of LangChain's ``init_chat_model`` (langchain 1.5.2,
in its dict order) plus ``mock``, and the resolution of a row into an `Endpoint`.

Facts (URLs, env vars, auth forms) come from ``shared/spec/providers.md`` §1.3; intentional
divergences from LangChain (§1.4): ``bedrock`` speaks Converse, ``huggingface`` the HF router,
``ollama`` and ``litellm`` their OpenAI-compatible HTTP surfaces, ``langsmith`` the Responses
API on the gateway.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from superstep_core.llm.auth import (
    IAM_TEST_URL,
    IAM_URL,
    GoogleAuth,
    IamTokenAuth,
    RequestAuth,
    SigV4Auth,
)
from superstep_core.llm.codec import Endpoint
from superstep_core.llm.errors import MissingCredentialsError, MissingSettingError
from superstep_core.llm.sigv4 import AwsCredentials

__all__ = ["PROVIDERS", "ProviderRow", "Resolution", "ResolveInput", "resolve"]


@dataclass(frozen=True)
class ProviderRow:
    """One provider key. ``base_url`` may contain ``{region}``; ``auth`` is ``bearer``,
    ``goog`` (``x-goog-api-key``), ``azure`` (``api-key``), ``aws`` (bearer or SigV4),
    ``google`` (OAuth2 token), ``iam`` (watsonx) or ``none``; ``sdk`` names the SDK that
    sends (``openai``, ``anthropic``) or ``httpx``."""

    key: str
    langchain_class: str
    wire_format: str
    flavour: str
    base_url: str = ""
    base_url_env: tuple[str, ...] = ()
    key_env: tuple[str, ...] = ()
    auth: str = "bearer"
    key_optional: bool = False
    sdk: str = "httpx"
    model_kwarg: str = "model"


def _row(key: str, cls: str, wire: str, flavour: str, **kw: Any) -> ProviderRow:
    return ProviderRow(key, cls, wire, flavour, **kw)


_OAI = {"sdk": "openai"}
_AWS_ENV = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID")
_BEDROCK = "https://bedrock-runtime.{region}.amazonaws.com"
_MANTLE = "https://bedrock-mantle.{region}.api.aws"

PROVIDERS: dict[str, ProviderRow] = {
    r.key: r
    for r in [
        _row("anthropic", "langchain_anthropic.ChatAnthropic", "anthropic_messages", "direct",
             base_url="https://api.anthropic.com",
             base_url_env=("ANTHROPIC_API_URL", "ANTHROPIC_BASE_URL"),
             key_env=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), sdk="anthropic"),
        _row("anthropic_bedrock", "langchain_aws.ChatAnthropicBedrock", "anthropic_messages",
             "bedrock", base_url=_BEDROCK, key_env=_AWS_ENV, auth="aws"),
        _row("azure_ai", "langchain_azure_ai.chat_models.AzureAIOpenAIApiChatModel",
             "openai_chat", "openai", key_env=("AZURE_INFERENCE_CREDENTIAL",), **_OAI),
        _row("azure_openai", "langchain_openai.AzureChatOpenAI", "openai_chat", "azure",
             key_env=("AZURE_OPENAI_API_KEY", "OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"),
             auth="azure", **_OAI),
        _row("baseten", "langchain_baseten.ChatBaseten", "openai_chat", "compat",
             base_url="https://inference.baseten.co/v1",
             base_url_env=("BASETEN_BASE_URL", "BASETEN_API_BASE"), key_env=("BASETEN_API_KEY",),
             **_OAI),
        _row("bedrock", "langchain_aws.ChatBedrock", "bedrock_converse", "bedrock",
             base_url=_BEDROCK, key_env=_AWS_ENV, auth="aws"),
        _row("bedrock_converse", "langchain_aws.ChatBedrockConverse", "bedrock_converse",
             "bedrock", base_url=_BEDROCK, key_env=_AWS_ENV, auth="aws"),
        _row("bedrock_mantle_anthropic", "langchain_aws.ChatAnthropicMantle",
             "anthropic_messages", "mantle", base_url=_MANTLE + "/anthropic",
             key_env=("AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_AWS_API_KEY", "AWS_ACCESS_KEY_ID"),
             auth="aws"),
        _row("bedrock_mantle_openai", "langchain_aws.ChatOpenAIMantle", "openai_chat", "compat",
             base_url=_MANTLE + "/v1", key_env=("AWS_BEARER_TOKEN_BEDROCK",), **_OAI),
        _row("cohere", "langchain_cohere.ChatCohere", "cohere_v2", "",
             base_url="https://api.cohere.com", key_env=("COHERE_API_KEY", "CO_API_KEY")),
        _row("deepseek", "langchain_deepseek.ChatDeepSeek", "openai_chat", "compat",
             base_url="https://api.deepseek.com/v1", base_url_env=("DEEPSEEK_API_BASE",),
             key_env=("DEEPSEEK_API_KEY",), **_OAI),
        _row("fireworks", "langchain_fireworks.ChatFireworks", "openai_chat", "compat",
             base_url="https://api.fireworks.ai/inference/v1",
             base_url_env=("FIREWORKS_API_BASE",), key_env=("FIREWORKS_API_KEY",), **_OAI),
        _row("google_anthropic_vertex",
             "langchain_google_vertexai.model_garden.ChatAnthropicVertex", "anthropic_messages",
             "vertex", auth="google"),
        _row("google_genai", "langchain_google_genai.ChatGoogleGenerativeAI", "gemini", "studio",
             base_url="https://generativelanguage.googleapis.com/v1beta",
             key_env=("GOOGLE_API_KEY", "GEMINI_API_KEY"), auth="goog"),
        _row("google_vertexai", "langchain_google_vertexai.ChatVertexAI", "gemini", "vertex",
             auth="google"),
        _row("groq", "langchain_groq.ChatGroq", "openai_chat", "compat",
             base_url="https://api.groq.com/openai/v1", base_url_env=("GROQ_API_BASE",),
             key_env=("GROQ_API_KEY",), **_OAI),
        _row("huggingface", "langchain_huggingface.ChatHuggingFace", "openai_chat", "compat",
             base_url="https://router.huggingface.co/v1",
             key_env=("HF_TOKEN", "HUGGINGFACEHUB_API_TOKEN"), model_kwarg="model_id", **_OAI),
        _row("ibm", "langchain_ibm.ChatWatsonx", "watsonx_chat", "",
             base_url_env=("WATSONX_URL",), key_env=("WATSONX_API_KEY", "WATSONX_APIKEY",
                                                     "WATSONX_TOKEN"),
             auth="iam", model_kwarg="model_id"),
        _row("langsmith", "langchain_openai.ChatOpenAI", "openai_responses", "openai",
             base_url="https://gateway.smith.langchain.com/v1",
             key_env=("LANGSMITH_GATEWAY_API_KEY", "LANGSMITH_API_KEY"), **_OAI),
        _row("litellm", "langchain_litellm.ChatLiteLLM", "openai_chat", "compat",
             base_url="http://localhost:4000/v1", base_url_env=("LITELLM_BASE_URL",),
             key_env=("LITELLM_API_KEY",), key_optional=True, **_OAI),
        _row("meta", "langchain_meta.ChatMetaModel", "openai_chat", "compat",
             base_url="https://api.meta.ai/v1", base_url_env=("MODEL_API_BASE",),
             key_env=("MODEL_API_KEY",), **_OAI),
        _row("mistralai", "langchain_mistralai.ChatMistralAI", "openai_chat", "mistral",
             base_url="https://api.mistral.ai/v1", base_url_env=("MISTRAL_BASE_URL",),
             key_env=("MISTRAL_API_KEY",), **_OAI),
        _row("nvidia", "langchain_nvidia_ai_endpoints.ChatNVIDIA", "openai_chat", "compat",
             base_url="https://integrate.api.nvidia.com/v1", base_url_env=("NVIDIA_BASE_URL",),
             key_env=("NVIDIA_API_KEY",), **_OAI),
        _row("ollama", "langchain_ollama.ChatOllama", "openai_chat", "compat",
             base_url="http://localhost:11434/v1", auth="none", key_optional=True, **_OAI),
        _row("openai", "langchain_openai.ChatOpenAI", "openai_chat", "openai",
             base_url="https://api.openai.com/v1",
             base_url_env=("OPENAI_BASE_URL", "OPENAI_API_BASE"), key_env=("OPENAI_API_KEY",),
             **_OAI),
        _row("openrouter", "langchain_openrouter.ChatOpenRouter", "openai_chat", "compat",
             base_url="https://openrouter.ai/api/v1", base_url_env=("OPENROUTER_API_BASE",),
             key_env=("OPENROUTER_API_KEY",), **_OAI),
        _row("perplexity", "langchain_perplexity.ChatPerplexity", "openai_chat", "compat",
             base_url="https://api.perplexity.ai", key_env=("PPLX_API_KEY", "PERPLEXITY_API_KEY"),
             **_OAI),
        _row("together", "langchain_together.ChatTogether", "openai_chat", "compat",
             base_url="https://api.together.xyz/v1", base_url_env=("TOGETHER_API_BASE",),
             key_env=("TOGETHER_API_KEY",), **_OAI),
        _row("upstage", "langchain_upstage.ChatUpstage", "openai_chat", "compat",
             base_url="https://api.upstage.ai/v1/solar", base_url_env=("UPSTAGE_API_BASE",),
             key_env=("UPSTAGE_API_KEY",), **_OAI),
        _row("xai", "langchain_xai.ChatXAI", "openai_chat", "compat",
             base_url="https://api.x.ai/v1", base_url_env=("XAI_API_BASE",),
             key_env=("XAI_API_KEY",), **_OAI),
        _row("mock", "superstep_core.llm.mock (offline, scripted)", "openai_chat", "compat",
             base_url="http://mock.superstep.invalid/v1", auth="none", key_optional=True,
             sdk="mock"),
    ]
}  # fmt: skip

RESPONSES_ONLY = ("gpt-5-pro", "gpt-5.2-pro", "gpt-5.4-pro", "gpt-5.5-pro", "gpt-5.6-sol")
"""OpenAI models served only by the Responses API (plus anything containing ``codex``)."""


@dataclass(frozen=True)
class ResolveInput:
    """What the caller gave (``None``: not given) and the environment to read."""

    model: str
    api_key: str | None = None
    base_url: str | None = None
    region: str | None = None
    project: str | None = None
    api_version: str | None = None
    deployment: str | None = None
    project_id: str | None = None
    space_id: str | None = None
    anthropic_version: str | None = None
    use_responses_api: bool | None = None
    token_url: str | None = None
    default_headers: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass(frozen=True)
class Resolution:
    """A resolved provider: wire format, endpoint, send-time auth and the SDK that sends."""

    row: ProviderRow
    wire_format: str
    endpoint: Endpoint
    auth: RequestAuth | None
    api_key: str | None


def _env(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    return next((env[n] for n in names if env.get(n)), None)


def _region(row: ProviderRow, given: ResolveInput, *, required: bool = True) -> str:
    region = given.region or _env(given.env, ("AWS_REGION", "AWS_DEFAULT_REGION"))
    if not region and required:
        raise MissingSettingError(row.key, "region", ("AWS_REGION", "AWS_DEFAULT_REGION"))
    return region or ""


def _aws(
    row: ProviderRow, given: ResolveInput, service: str
) -> tuple[dict[str, str], RequestAuth | None, str | None]:
    bearer = given.api_key or _env(given.env, row.key_env[:-1])
    if bearer:
        return {"Authorization": f"Bearer {bearer}"}, None, bearer
    key_id, secret = given.env.get("AWS_ACCESS_KEY_ID"), given.env.get("AWS_SECRET_ACCESS_KEY")
    if key_id and secret:
        creds = AwsCredentials(key_id, secret, given.env.get("AWS_SESSION_TOKEN") or None)
        return {}, SigV4Auth(creds, _region(row, given), service), None
    raise MissingCredentialsError(
        row.key, (*row.key_env[:-1], "AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY")
    )


def _google(
    row: ProviderRow, given: ResolveInput
) -> tuple[dict[str, str], RequestAuth | None, str | None]:
    token = given.api_key or given.env.get("GOOGLE_OAUTH_ACCESS_TOKEN")
    if token:
        return {"Authorization": f"Bearer {token}"}, None, token
    return {}, GoogleAuth(), None


def _vertex_base(location: str, version: str) -> str:
    host = (
        "aiplatform.googleapis.com"
        if location == "global"
        else f"{location}-aiplatform.googleapis.com"
    )
    return f"https://{host}/{version}"


def resolve(key: str, given: ResolveInput) -> Resolution:
    """Resolve provider ``key`` (must be in `PROVIDERS`) for ``given``. Raises
    `MissingCredentialsError` naming the environment variable(s) to set, or
    `MissingSettingError` naming the setting (region, endpoint, project…)."""
    row = PROVIDERS[key]
    env = given.env
    wire = row.wire_format
    flavour = row.flavour
    settings: dict[str, Any] = {}
    headers: dict[str, str] = {}
    auth: RequestAuth | None = None
    base = given.base_url or _env(env, row.base_url_env) or row.base_url
    api_key = given.api_key or _env(env, row.key_env)

    if row.auth == "aws":
        service = "bedrock-mantle" if key.startswith("bedrock_mantle") else "bedrock"
        region = _region(row, given)
        base = given.base_url or row.base_url.format(region=region)
        headers, auth, api_key = _aws(row, given, service)
    elif row.auth == "google":
        location = (
            given.region or _env(env, ("GOOGLE_CLOUD_LOCATION", "CLOUD_ML_REGION")) or "us-central1"
        )
        project = given.project or _env(
            env, ("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT")
        )
        if not project:
            raise MissingSettingError(key, "project", ("GOOGLE_CLOUD_PROJECT",))
        settings.update(project=project, region=location)
        version = "v1" if wire == "anthropic_messages" else (given.api_version or "v1beta1")
        base = given.base_url or _vertex_base(location, version)
        headers, auth, api_key = _google(row, given)
    elif row.auth == "iam":
        if not base:
            raise MissingSettingError(key, "base_url", ("WATSONX_URL",))
        project_id = given.project_id or given.project or env.get("WATSONX_PROJECT_ID")
        space_id = given.space_id or env.get("WATSONX_SPACE_ID")
        if not project_id and not space_id:
            raise MissingSettingError(key, "project_id", ("WATSONX_PROJECT_ID", "WATSONX_SPACE_ID"))
        settings.update(project_id=project_id, space_id=space_id, api_version=given.api_version)
        token = env.get("WATSONX_TOKEN") if not given.api_key else None
        api_key = given.api_key or _env(env, ("WATSONX_API_KEY", "WATSONX_APIKEY"))
        if token:
            headers = {"Authorization": f"Bearer {token}"}
        elif api_key:
            test = ".test." in base or "test.cloud.ibm.com" in base
            auth = IamTokenAuth(api_key, given.token_url or (IAM_TEST_URL if test else IAM_URL))
        else:
            raise MissingCredentialsError(key, row.key_env)
    else:
        if key == "google_genai" and env.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in (
            "1",
            "true",
        ):
            return resolve("google_vertexai", given)
        if key == "azure_openai":
            azure = given.base_url or env.get("AZURE_OPENAI_ENDPOINT")
            if not azure:
                raise MissingSettingError(key, "base_url", ("AZURE_OPENAI_ENDPOINT",))
            azure_version = given.api_version or env.get("OPENAI_API_VERSION")
            if not azure_version:
                raise MissingSettingError(key, "api_version", ("OPENAI_API_VERSION",))
            deployment = given.deployment or env.get("AZURE_OPENAI_DEPLOYMENT_NAME") or given.model
            base = f"{azure.rstrip('/')}/openai/deployments/{deployment}"
            settings["api_version"] = azure_version
        elif key == "azure_ai" and not base:
            foundry = env.get("AZURE_AI_OPENAI_ENDPOINT")
            if not foundry and env.get("AZURE_OPENAI_ENDPOINT"):
                foundry = env["AZURE_OPENAI_ENDPOINT"].rstrip("/") + "/openai/v1"
            if not foundry:
                raise MissingSettingError(
                    key, "base_url", ("AZURE_AI_OPENAI_ENDPOINT", "AZURE_OPENAI_ENDPOINT")
                )
            base = foundry
        elif key == "ollama" and not given.base_url and env.get("OLLAMA_HOST"):
            host = env["OLLAMA_HOST"]
            base = (host if "://" in host else f"http://{host}").rstrip("/") + "/v1"
        elif key == "openrouter":
            for header, var in (
                ("HTTP-Referer", "OPENROUTER_APP_URL"),
                ("X-Title", "OPENROUTER_APP_TITLE"),
            ):
                if env.get(var):
                    headers[header] = env[var]
        if key.startswith("bedrock_mantle"):
            base = given.base_url or row.base_url.format(region=_region(row, given))
        if key in ("openai", "bedrock_mantle_openai") and _responses_only(given):
            wire, flavour = "openai_responses", "openai"
            if key == "bedrock_mantle_openai" and not given.base_url:
                base = base.removesuffix("/v1") + "/openai/v1"
        if not api_key and not row.key_optional:
            raise MissingCredentialsError(key, row.key_env)
        if row.auth == "azure" and api_key:
            if env.get("AZURE_OPENAI_AD_TOKEN") == api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            else:
                headers["api-key"] = api_key
        elif row.auth == "goog" and api_key:
            headers["x-goog-api-key"] = api_key
        elif row.auth == "bearer" and api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        if key == "openai":
            for header, var in (
                ("OpenAI-Organization", "OPENAI_ORG_ID"),
                ("OpenAI-Project", "OPENAI_PROJECT_ID"),
            ):
                if env.get(var):
                    headers[header] = env[var]
    if given.anthropic_version:
        settings["anthropic_version"] = given.anthropic_version
    settings.setdefault("api_version", given.api_version)
    headers.update(given.default_headers)
    endpoint = Endpoint(key, base.rstrip("/"), headers, flavour, settings)
    return Resolution(row, wire, endpoint, auth, api_key)


def _responses_only(given: ResolveInput) -> bool:
    if given.use_responses_api is not None:
        return given.use_responses_api
    name = given.model.lower().removeprefix("openai.")
    if given.model.lower().startswith("openai.gpt-") and "gpt-oss" not in name:
        return True
    return "codex" in name or any(name.startswith(m) for m in RESPONSES_ONLY)
