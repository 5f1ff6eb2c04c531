"""Which environment variables hold secrets: never passed to a tool, expanded into a file or written down."""

from __future__ import annotations

import re

SECRET_ENV = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PAT$)"
    r"|^(OPENAI_|ANTHROPIC_|AZURE_|AWS_|GOOGLE_|GCP_|GEMINI_|MISTRAL_|COHERE_|GROQ_|HF_|HUGGING|GH_|GITHUB_|GITLAB_"
    r"|NPM_|PYPI_|TWINE_|DOCKER_|SSH_AUTH|GPG_|VAULT_)",
    re.I,
)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_ENV.search(name))


_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]*@")


def without_credentials(text: str) -> str:
    """``text`` with the ``user:password@`` part of every URL in it removed (some proxies put credentials
    there); what hh records of a command line or an endpoint goes through here."""
    return _URL_CREDENTIALS.sub("", text)
