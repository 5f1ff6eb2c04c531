"""``hh run``'s stop flag: Ctrl-C and SIGTERM finish the iteration, and a signal the run inherited as ignored stays
ignored (a background job of a shell ignores SIGINT; ``hh gate`` and the tools keep that too)."""

from __future__ import annotations

import signal

from hyperheurist.flow.session import StopFlag


def test_signals_set_the_flag_and_handlers_are_restored() -> None:
    before = {s: signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        flag = StopFlag()
        restore = flag.install()
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler) and signal.getsignal(signal.SIGTERM) is handler
        assert not flag()
        handler(signal.SIGINT, None)
        assert flag() and flag.reason == "SIGINT"
        restore()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def test_an_inherited_ignore_stays_ignored() -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        restore = StopFlag().install()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert callable(signal.getsignal(signal.SIGTERM))
        restore()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        for s, h in before.items():
            signal.signal(s, h)
