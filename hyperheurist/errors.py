"""Error types and the exit codes the CLI maps them to."""

from __future__ import annotations

EXIT_OK = 0
EXIT_INVALID = 1  # functionally invalid design (a gate failed)
EXIT_USAGE = 2  # bad usage or configuration
EXIT_INFRA = 3  # infrastructure fault: a tool missing, crashing or misbehaving
EXIT_INTERRUPTED = 130


class HHError(Exception):
    """Base class; ``exit_code`` is what the CLI exits with."""

    exit_code = EXIT_INFRA


class ConfigError(HHError):
    """A design.yaml, flow preset or CLI argument is wrong (one line, names file and field)."""

    exit_code = EXIT_USAGE


class InputError(HHError):
    """An input file (RTL, run directory) is unusable."""

    exit_code = EXIT_USAGE


class ToolError(HHError):
    """An external tool is missing, crashed or produced output we cannot read."""

    exit_code = EXIT_INFRA


class ToolNotFound(ToolError):
    pass


class StorageError(HHError):
    """The run directory (or cache) cannot be written: disk full, quota, file-size limit."""

    exit_code = EXIT_INFRA


class NoValidCandidate(HHError):
    """Phase 1 ended with no candidate passing every gate."""

    exit_code = EXIT_INVALID
